/** DI token of the billing service's DataSource (schema `billing`). */
export const BILLING_DB = Symbol('BILLING_DB');

/** DI token of the optional BillingBatchSettings (defaults apply without it). */
export const BILLING_BATCH_SETTINGS = Symbol('BILLING_BATCH_SETTINGS');

/** DI token of BillingOutboxSettings (the low-balance events' relay). */
export const BILLING_OUTBOX_SETTINGS = Symbol('BILLING_OUTBOX_SETTINGS');
