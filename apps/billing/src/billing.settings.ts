import { BillingPaymentsSettings, EnvReader, int, readBillingPaymentsSettings, SettingsOf } from '@gen/config';
import { DEFAULT_BILLING_BATCH_SETTINGS } from './holds/billing-batch.settings';
import { DEFAULT_BILLING_OUTBOX_SETTINGS } from './low-balance/low-balance-relay.service';

/**
 * The billing service's own variables, read by the service and by standalone (libs/config for the
 * shared ones). A new one is one line here; its value reaches BillingModule.register()'s settings
 * (BillingBatchSettings) under the same name.
 */
export const BILLING_VARIABLES = {
  reserveBatchMax: int('BILLING_RESERVE_BATCH_MAX', DEFAULT_BILLING_BATCH_SETTINGS.reserveBatchMax, 'credit reserves written by one statement (group commit)', { min: 1, max: 10_000 }),
  settleBatchMax: int('BILLING_SETTLE_BATCH_MAX', DEFAULT_BILLING_BATCH_SETTINGS.settleBatchMax, 'captures and releases written by one statement (group commit)', { min: 1, max: 10_000 }),
  conflictAttempts: int('BILLING_CONFLICT_ATTEMPTS', DEFAULT_BILLING_BATCH_SETTINGS.conflictAttempts, 'runs of a batch in all when PostgreSQL aborts it as a deadlock or serialization failure', { min: 1, max: 20 }),
  outboxPollMs: int('BILLING_OUTBOX_POLL_MS', DEFAULT_BILLING_OUTBOX_SETTINGS.pollMs, 'how often the relay looks for unpublished account events (low-balance alerts)', { min: 50, max: 60_000 }),
  outboxLeaseMs: int('BILLING_OUTBOX_LEASE_MS', DEFAULT_BILLING_OUTBOX_SETTINGS.leaseMs, 'how long a relay holds the events it publishes before another takes them over', { min: 1_000, max: 600_000 }),
  outboxRetentionHours: int('BILLING_OUTBOX_RETENTION_HOURS', DEFAULT_BILLING_OUTBOX_SETTINGS.retentionMs / 3_600_000, 'how long a published account event stays in the outbox before it is deleted', { min: 1, max: 8_760 }),
};

/** BILLING_VARIABLES, and payments (PAYMENTS_PROVIDER and Stripe's API, libs/config's payments.ts). */
export type BillingSettings = SettingsOf<typeof BILLING_VARIABLES> & { payments: BillingPaymentsSettings };

export function readBillingSettings(env: EnvReader): BillingSettings {
  return { ...env.readAll(BILLING_VARIABLES), payments: readBillingPaymentsSettings(env) };
}
