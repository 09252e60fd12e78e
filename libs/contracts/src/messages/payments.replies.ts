import type { PlanName } from '../shared/generation';

/**
 * Payments' replies as plain shapes (no decorators): what the gateway and the dashboard read. The
 * classes for the message contract are in payments.messages.ts.
 */

/** `applied`: it changed something; `duplicate`: the event id was processed before; `ignored`: not a type billing acts on, or stale. */
export const STRIPE_EVENT_OUTCOMES = ['applied', 'duplicate', 'ignored'] as const;

export type StripeEventOutcome = (typeof STRIPE_EVENT_OUTCOMES)[number];

export interface StripeEventReply {
  outcome: StripeEventOutcome;
}

/** A credit pack the operator sells. `unit_amount` in the currency's smallest unit (cents). */
export interface CreditPackView {
  id: string;
  name: string;
  credits: number;
  unit_amount: number;
  currency: string;
}

export interface PurchaseView {
  checkout_session_id: string;
  pack_id: string;
  credits: number;
  amount: number;
  currency: string;
  payment_intent_id: string | null;
  receipt_url: string | null;
  /** Credits taken back by refunds so far. */
  refunded_credits: number;
  created_at: string;
}

export interface ListPurchasesReply {
  data: PurchaseView[];
}

export interface PaymentsOverview {
  /** PAYMENTS_PROVIDER of billing: `none`, the page says payments are off. */
  provider: 'none' | 'stripe';
  available: number;
  packs: CreditPackView[];
  /** The account's Stripe customer, once it has one (its first checkout or portal visit). */
  stripe_customer_id: string | null;
  /** The account's plan subscription at Stripe, if it has one. */
  subscription: SubscriptionView | null;
  /** The plans sold as subscriptions (the operator's `plans price`). */
  plans: PlanName[];
  /** The automatic top-up (null with payments off); `failing` is the page's banner. */
  top_up: TopUpView | null;
  /** Set while the account's submits are refused (a refund of spent credits, a dispute): the page's banner. */
  restriction: RestrictionView | null;
}

export interface SubscriptionView {
  subscription_id: string;
  /** Stripe's status: `active`, `past_due`, `canceled`, ... */
  status: string;
  /** The plan the subscription's price is for (the account's plan until `downgrade_at` when lower). */
  plan: PlanName;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  downgrade_at: string | null;
  /** A renewal failed: unpaid past this, the account moves to Free. */
  grace_until: string | null;
}

export interface TopUpView {
  enabled: boolean;
  pack_id: string | null;
  /** The low-balance threshold: a top-up starts when the available credits fall below it. */
  threshold: number | null;
  /** A pack payment saved a card for off-session payments (needed to turn top-ups on). */
  card_saved: boolean;
  /** The last attempt failed: `last_error` says why and what to do; retried after `next_attempt_at`. */
  failing: boolean;
  last_error: string | null;
  next_attempt_at: string | null;
}

export interface SubscribeReply {
  /** `checkout`: send the browser to `url`; `now`: the new plan applies at once; `period_end`: at the end of the period paid for. */
  effective: 'checkout' | 'now' | 'period_end';
  url: string | null;
  plan: PlanName;
}

export interface RestrictionView {
  reason: string;
  message: string;
  since: string;
}

export interface CheckoutReply {
  checkout_session_id: string;
  url: string;
}

export interface PortalReply {
  url: string;
}

/** An invoice at Stripe (a subscription's, a top-up's), with its hosted page and PDF. */
export interface InvoiceView {
  id: string;
  number: string | null;
  status: string | null;
  amount_due: number;
  amount_paid: number;
  currency: string;
  created: string;
  hosted_invoice_url: string | null;
  invoice_pdf: string | null;
}

export interface ListInvoicesReply {
  data: InvoiceView[];
}
