import { IsBoolean, IsIn, IsNumber, IsObject, IsOptional, IsString } from 'class-validator';
import { PLANS, PlanName } from '../generation';
import { Nested, Nullable } from '../validation';

/**
 * Payments through Stripe (docs/operations/payments.md): the gateway checks each Stripe delivery's
 * signature and hands the event to billing, which owns the money; the dashboard's Billing page asks
 * billing for the rest. Requests are checked on receipt (PAYLOAD_CLASSES); replies are interfaces
 * with classes beside them for the message contract, as in billing.reply-payloads.ts.
 */

/** A Stripe event whose signature the gateway checked (`billing.stripe.event`): the parsed event as Stripe sent it. */
export class StripeEventRequest {
  /** Stripe's Event object (`id`, `type`, `created`, `data.object`, ...); billing reads what it needs. */
  @IsObject() event!: Record<string, unknown>;
}

/** `applied`: it changed something; `duplicate`: the event id was processed before; `ignored`: not a type billing acts on, or stale. */
export const STRIPE_EVENT_OUTCOMES = ['applied', 'duplicate', 'ignored'] as const;
export type StripeEventOutcome = (typeof STRIPE_EVENT_OUTCOMES)[number];

export interface StripeEventReply {
  outcome: StripeEventOutcome;
}

export class StripeEventReplyPayload implements StripeEventReply {
  @IsIn(STRIPE_EVENT_OUTCOMES) outcome!: StripeEventOutcome;
}

/** The Billing page of one account (`billing.payments.overview`). */
export class PaymentsOverviewRequest {
  @IsString() accountId!: string;
}

/** Buy a credit pack: a Stripe Checkout Session in payment mode (`billing.payments.checkout`). */
export class CreateCheckoutRequest {
  @IsString() accountId!: string;
  @IsString() packId!: string;
  /** Where Stripe sends the customer back (the dashboard's Billing page). */
  @IsString() successUrl!: string;
  @IsString() cancelUrl!: string;
  /** The buyer's email, for a new Stripe customer; absent: none. */
  @IsOptional() @IsString() email?: string;
}

/** A Stripe customer portal session for cards and invoices (`billing.payments.portal`). */
export class CreatePortalRequest {
  @IsString() accountId!: string;
  @IsString() returnUrl!: string;
  @IsOptional() @IsString() email?: string;
}

/** The owner picks a plan (`billing.payments.subscribe`): Checkout for a first subscription, else the subscription's price changes. */
export class SubscribeRequest {
  @IsString() accountId!: string;
  @IsIn(PLANS) plan!: PlanName;
  @IsString() successUrl!: string;
  @IsString() cancelUrl!: string;
  @IsOptional() @IsString() email?: string;
}

/** The account's automatic top-up (`billing.payments.top-up.get`). */
export class GetTopUpRequest {
  @IsString() accountId!: string;
}

/**
 * Turns the automatic top-up on (`packId` and `threshold`: the low-balance threshold whose crossing
 * starts it) or off (`packId` null) (`billing.payments.top-up.set`).
 */
export class SetTopUpRequest {
  @IsString() accountId!: string;
  @IsOptional() @IsString() packId?: string | null;
  @IsOptional() @IsNumber() threshold?: number | null;
}

/** The account's pack purchases, newest first (`billing.payments.purchases`). */
export class ListPurchasesRequest {
  @IsString() accountId!: string;
  @IsNumber() limit!: number;
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

export class CreditPackViewPayload implements CreditPackView {
  @IsString() id!: string;
  @IsString() name!: string;
  @IsNumber() credits!: number;
  @IsNumber() unit_amount!: number;
  @IsString() currency!: string;
}

export class PurchaseViewPayload implements PurchaseView {
  @IsString() checkout_session_id!: string;
  @IsString() pack_id!: string;
  @IsNumber() credits!: number;
  @IsNumber() amount!: number;
  @IsString() currency!: string;
  @Nullable() @IsString() payment_intent_id!: string | null;
  @Nullable() @IsString() receipt_url!: string | null;
  @IsNumber() refunded_credits!: number;
  @IsString() created_at!: string;
}

export class ListPurchasesReplyPayload implements ListPurchasesReply {
  @Nested(() => PurchaseViewPayload, { each: true }) data!: PurchaseViewPayload[];
}

export class PaymentsOverviewPayload implements PaymentsOverview {
  @IsIn(['none', 'stripe']) provider!: 'none' | 'stripe';
  @IsNumber() available!: number;
  @Nested(() => CreditPackViewPayload, { each: true }) packs!: CreditPackViewPayload[];
  @Nullable() @IsString() stripe_customer_id!: string | null;
  @Nullable() @Nested(() => SubscriptionViewPayload) subscription!: SubscriptionViewPayload | null;
  @IsIn(PLANS, { each: true }) plans!: PlanName[];
  @Nullable() @Nested(() => TopUpViewPayload) top_up!: TopUpViewPayload | null;
  @Nullable() @Nested(() => RestrictionViewPayload) restriction!: RestrictionViewPayload | null;
}

export class TopUpViewPayload implements TopUpView {
  @IsBoolean() enabled!: boolean;
  @Nullable() @IsString() pack_id!: string | null;
  @Nullable() @IsNumber() threshold!: number | null;
  @IsBoolean() card_saved!: boolean;
  @IsBoolean() failing!: boolean;
  @Nullable() @IsString() last_error!: string | null;
  @Nullable() @IsString() next_attempt_at!: string | null;
}

export class SubscriptionViewPayload implements SubscriptionView {
  @IsString() subscription_id!: string;
  @IsString() status!: string;
  @IsIn(PLANS) plan!: PlanName;
  @Nullable() @IsString() current_period_end!: string | null;
  @IsBoolean() cancel_at_period_end!: boolean;
  @Nullable() @IsString() downgrade_at!: string | null;
  @Nullable() @IsString() grace_until!: string | null;
}

export class SubscribeReplyPayload implements SubscribeReply {
  @IsIn(['checkout', 'now', 'period_end']) effective!: 'checkout' | 'now' | 'period_end';
  @Nullable() @IsString() url!: string | null;
  @IsIn(PLANS) plan!: PlanName;
}

export class RestrictionViewPayload implements RestrictionView {
  @IsString() reason!: string;
  @IsString() message!: string;
  @IsString() since!: string;
}

export class CheckoutReplyPayload implements CheckoutReply {
  @IsString() checkout_session_id!: string;
  @IsString() url!: string;
}

export class PortalReplyPayload implements PortalReply {
  @IsString() url!: string;
}
