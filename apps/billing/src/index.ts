// The billing service as other processes compose it (standalone, the CLI): its module, database and settings.
export { BillingModule } from './billing.module';
export { billingDatabaseOptions, openBillingDatabase } from './billing.database';
export { BillingService } from './holds/billing.service';
export { readBillingSettings, type BillingSettings } from './billing.settings';
export { DEFAULT_BILLING_BATCH_SETTINGS, type BillingBatchSettings } from './holds/billing-batch.settings';
export { KeyCapsService, MAX_KEY_CAP } from './caps/key-caps.service';
export { LowBalanceService } from './low-balance/low-balance.service';
export { billingRelease } from './billing.release';
export { PaymentsService } from './payments/payments.service';
export { SubscriptionsService } from './payments/subscriptions.service';
export { TopUpsService } from './payments/top-ups.service';
