export * from './webhooks.module';
export * from './webhooks.database';
export * from './webhooks.settings';
export * from './deliveries/deliveries.service';
export * from './dispatch/delivery-dispatcher.service';
export { validateWebhookUrl, MAX_WEBHOOK_URL_LENGTH } from './security';
export type { WebhookUrlValidation, WebhookDestinationPolicy } from './security';
