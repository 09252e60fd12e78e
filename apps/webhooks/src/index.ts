export * from './webhooks.module';
export * from './webhooks.database';
