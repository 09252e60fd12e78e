/** DI token of the webhooks service's DataSource (schema `webhooks`). */
export const WEBHOOKS_DB = Symbol('WEBHOOKS_DB');
