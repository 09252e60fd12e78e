import { EnvReader, SettingsOf } from '@gen/config';

/**
 * The billing service's own variables, read by the service and by standalone: none yet, billing
 * reads only the shared ones (libs/config). A new one is one line here, e.g.
 * `reserveBatch: int('BILLING_RESERVE_BATCH', 100, 'reserves written in one statement', { min: 1, max: 1000 })`,
 * and its value reaches BillingModule.register()'s settings under the same name.
 */
export const BILLING_VARIABLES = {};

export type BillingSettings = SettingsOf<typeof BILLING_VARIABLES>;

export function readBillingSettings(env: EnvReader): BillingSettings {
  return env.readAll(BILLING_VARIABLES);
}
