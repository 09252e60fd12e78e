import type { Logger } from '@nestjs/common';
import Stripe from 'stripe';
import type { BillingPaymentsSettings } from '@gen/config';
import { DomainError, NotFoundError, ServiceUnavailableError } from '@gen/errors';

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

/** The Stripe client; with payments off, a 404 that says what to ask the operator for instead. */
export function stripeOrOff(stripe: Stripe | null, whenOff: string): Stripe {
  if (!stripe) throw new NotFoundError(whenOff);
  return stripe;
}

/** A call to Stripe: its refusals and outages become a 503 that names Stripe (never a 500). */
export async function callStripe<T>(logger: Logger, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    const stripeError = error as { type?: string; message?: string; statusCode?: number };
    logger.warn({ type: stripeError.type, status: stripeError.statusCode, message: stripeError.message }, 'Stripe API call failed');
    throw new ServiceUnavailableError(`Stripe did not complete the request (${stripeError.message ?? 'no answer'}); retry shortly.`, 5);
  }
}

/** The id of a Stripe reference, whether it came as an id or as the expanded object. */
export const stripeId = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : null;
