/** DI token of the webhooks service's DataSource (schema `webhooks`). */
export const WEBHOOKS_DB = Symbol('WEBHOOKS_DB');

/** DI token of the module's WebhooksSettings. */
export const WEBHOOKS_SETTINGS = Symbol('WEBHOOKS_SETTINGS');
