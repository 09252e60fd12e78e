import Stripe from 'stripe';
import type { BillingPaymentsSettings } from '@gen/config';

/** DI token of billing's Stripe client (null with PAYMENTS_PROVIDER=none). */
export const STRIPE_API = Symbol('STRIPE_API');

/** DI token of BillingPaymentsSettings. */
export const PAYMENTS_SETTINGS = Symbol('PAYMENTS_SETTINGS');

/**
 * The official client, pointed at STRIPE_API_HOST/PORT/PROTOCOL when set (a regional endpoint, or
 * the stand-in in tests). Two network retries with Stripe's own idempotency keys: a create retried
 * after a lost answer returns the first object, not a second one.
 */
export function createStripeApi(settings: BillingPaymentsSettings): Stripe | null {
  if (settings.provider !== 'stripe' || !settings.stripe) return null;
  const { secretKey, host, port, protocol } = settings.stripe;
  return new Stripe(secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(host === null ? {} : { host, port, protocol }),
    appInfo: { name: 'generation-service-billing' },
  });
}
