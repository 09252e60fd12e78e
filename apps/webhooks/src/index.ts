export * from './webhooks.module';
export * from './webhooks.database';
export * from './webhooks.settings';
export * from './deliveries/deliveries.service';
export * from './dispatch/delivery-dispatcher.service';
export * from './metrics/delivery-metrics';
export * from './admin/deliveries-admin.service';
export * from './deliveries/webhook-body';
