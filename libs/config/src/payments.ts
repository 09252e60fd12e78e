import type { EnvReader } from './env';
import { choice, int, matching, text, unset } from './variables';

/**
 * Payments (docs/operations/payments.md): read by billing (which talks to Stripe's API) and by the
 * gateway (which checks the signatures of Stripe's webhook deliveries). `none` is today's
 * behaviour: credits and plans only through the operator CLI.
 */
export const PAYMENTS_PROVIDER = choice('PAYMENTS_PROVIDER', ['none', 'stripe'] as const, 'none', '`none`: customers cannot pay (credits and plans through the operator CLI only); `stripe`: credit packs, top-ups and plan subscriptions through Stripe (docs/operations/payments.md)');

/** Billing's way to Stripe's API. The host, port and protocol point it at a regional endpoint or a test stand-in. */
export const STRIPE_API_VARIABLES = {
  secretKey: text<string | null>('STRIPE_SECRET_KEY', unset('none; **required** with `PAYMENTS_PROVIDER=stripe`'), "Stripe secret or restricted key (`sk_...`, `rk_...`) billing calls Stripe's API with"),
  host: text<string | null>('STRIPE_API_HOST', unset("Stripe's default (`api.stripe.com`)"), "host of Stripe's API (a regional endpoint, or a stand-in in tests)"),
  port: int('STRIPE_API_PORT', 443, "port of Stripe's API", { min: 1, max: 65_535 }),
  protocol: choice('STRIPE_API_PROTOCOL', ['https', 'http'] as const, 'https', "protocol of Stripe's API (`http` only for a local stand-in)"),
};

/** Billing's handling of subscriptions (docs/operations/payments.md, "Subscriptions"). */
export const SUBSCRIPTION_VARIABLES = {
  graceHours: int('SUBSCRIPTION_GRACE_HOURS', 168, 'after a failed renewal, how long an account keeps its paid plan while Stripe retries the card; then it moves to Free', { min: 0, max: 24 * 90 }),
  sweepMs: int('PAYMENTS_SWEEP_MS', 60_000, 'how often billing looks for downgrades whose period ended, grace periods that ended unpaid and automatic top-ups to retry', { min: 1_000, max: 3_600_000 }),
  topUpRetryMinutes: int('TOP_UP_RETRY_MINUTES', 360, 'after a failed automatic top-up, the wait before the first retry; it doubles with each failure, up to a day', { min: 1, max: 1_440 }),
};

/** The gateway checks each Stripe delivery's `Stripe-Signature` with this secret (the endpoint's signing secret). */
export const STRIPE_WEBHOOK_SECRET = matching('STRIPE_WEBHOOK_SECRET', '', 'signing secret (`whsec_...`) of the Stripe webhook endpoint `POST /billing/stripe/webhook`; **required** with `PAYMENTS_PROVIDER=stripe`', /^(|whsec_\S+)$/, 'must be the endpoint signing secret Stripe shows, starting with whsec_');

export interface StripeApiSettings {
  secretKey: string;
  host: string | null;
  port: number;
  protocol: 'https' | 'http';
}

/** Billing's payments settings: `stripe` null when PAYMENTS_PROVIDER=none. */
export interface BillingPaymentsSettings {
  provider: 'none' | 'stripe';
  stripe: StripeApiSettings | null;
  /** SUBSCRIPTION_GRACE_HOURS. */
  subscriptionGraceHours: number;
  /** PAYMENTS_SWEEP_MS. */
  sweepMs: number;
  /** TOP_UP_RETRY_MINUTES. */
  topUpRetryMinutes: number;
}

/** The gateway's: the webhook secret (null when PAYMENTS_PROVIDER=none: the webhook route answers 404). */
export interface GatewayPaymentsSettings {
  provider: 'none' | 'stripe';
  webhookSecret: string | null;
}

export function readBillingPaymentsSettings(env: EnvReader): BillingPaymentsSettings {
  const provider = env.read(PAYMENTS_PROVIDER);
  const api = env.readAll(STRIPE_API_VARIABLES);
  const subscriptions = env.readAll(SUBSCRIPTION_VARIABLES);
  const tuning = { subscriptionGraceHours: subscriptions.graceHours, sweepMs: subscriptions.sweepMs, topUpRetryMinutes: subscriptions.topUpRetryMinutes };
  if (provider === 'none') return { provider, stripe: null, ...tuning };
  if (api.secretKey === null || !/^(sk|rk)_\S+$/.test(api.secretKey)) {
    env.problem('STRIPE_SECRET_KEY is required with PAYMENTS_PROVIDER=stripe: a Stripe secret or restricted key (sk_... or rk_...)');
  }
  return { provider, stripe: { secretKey: api.secretKey ?? '', host: api.host, port: api.port, protocol: api.protocol }, ...tuning };
}

export function readGatewayPaymentsSettings(env: EnvReader): GatewayPaymentsSettings {
  const provider = env.read(PAYMENTS_PROVIDER);
  const secret = env.read(STRIPE_WEBHOOK_SECRET);
  if (provider === 'none') return { provider, webhookSecret: null };
  if (secret === '') env.problem('STRIPE_WEBHOOK_SECRET is required with PAYMENTS_PROVIDER=stripe: the signing secret (whsec_...) of the webhook endpoint');
  return { provider, webhookSecret: secret };
}
