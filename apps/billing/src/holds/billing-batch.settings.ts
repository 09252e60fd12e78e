/**
 * Tuning of the group commit of holds (HoldsWriter, HoldsRepository). Defaults here; a deployment may override
 * them through BillingModule.register (proposed variables in brackets).
 */
export interface BillingBatchSettings {
  /** Most reserves applied by one statement; more wait for the next one [BILLING_RESERVE_BATCH_MAX]. */
  reserveBatchMax: number;
  /** Most captures and releases applied by one statement [BILLING_SETTLE_BATCH_MAX]. */
  settleBatchMax: number;
  /** Runs of a batch in all when PostgreSQL aborts it as a deadlock victim or a serialization failure [BILLING_CONFLICT_ATTEMPTS]. */
  conflictAttempts: number;
}

export const DEFAULT_BILLING_BATCH_SETTINGS: BillingBatchSettings = {
  reserveBatchMax: 100,
  settleBatchMax: 100,
  conflictAttempts: 3,
};
