export * from './billing.module';
export * from './billing.database';
export * from './holds/billing.service';
export * from './accounts/plans';
