export * from './billing.module';
export * from './billing.database';
export * from './holds/billing.service';
export * from './accounts/plans';
export { BillingRepository } from './holds/billing.repository';
export * from './holds/billing-batch.settings';
