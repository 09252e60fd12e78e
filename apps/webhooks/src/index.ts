// The webhooks service as other processes compose it (standalone, the CLI) and the benchmarks drive it.
export { WebhooksModule } from './webhooks.module';
export { openWebhooksDatabase, webhooksDatabaseOptions } from './webhooks.database';
export { readWebhooksSettings, WEBHOOKS_DEFAULTS, type WebhooksSettings } from './config/webhooks.settings';
export { DeliveryDispatcher } from './dispatch/delivery-dispatcher.service';
export { DeliveriesAdminModule } from './admin/deliveries-admin.module';
export { DeliveriesAdminService } from './admin/deliveries-admin.service';
export { serialiseWebhookBody, webhookBody } from './deliveries/webhook-body';
export { webhooksRelease } from './webhooks.release';
