import { EnvReader, int, SettingsOf } from '@gen/config';
import { DEFAULT_BILLING_BATCH_SETTINGS } from './holds/billing-batch.settings';

/**
 * The billing service's own variables, read by the service and by standalone (libs/config for the
 * shared ones). A new one is one line here; its value reaches BillingModule.register()'s settings
 * (BillingBatchSettings) under the same name.
 */
export const BILLING_VARIABLES = {
  reserveBatchMax: int('BILLING_RESERVE_BATCH_MAX', DEFAULT_BILLING_BATCH_SETTINGS.reserveBatchMax, 'credit reserves written by one statement (group commit)', { min: 1, max: 10_000 }),
  settleBatchMax: int('BILLING_SETTLE_BATCH_MAX', DEFAULT_BILLING_BATCH_SETTINGS.settleBatchMax, 'captures and releases written by one statement (group commit)', { min: 1, max: 10_000 }),
  conflictAttempts: int('BILLING_CONFLICT_ATTEMPTS', DEFAULT_BILLING_BATCH_SETTINGS.conflictAttempts, 'runs of a batch in all when PostgreSQL aborts it as a deadlock or serialization failure', { min: 1, max: 20 }),
};

export type BillingSettings = SettingsOf<typeof BILLING_VARIABLES>;

export function readBillingSettings(env: EnvReader): BillingSettings {
  return env.readAll(BILLING_VARIABLES);
}
