/** DI token of the billing service's DataSource (schema `billing`). */
export const BILLING_DB = Symbol('BILLING_DB');
