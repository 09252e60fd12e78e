import { IsBoolean, IsIn, IsNumber, IsObject, IsOptional, IsString } from 'class-validator';
import { PLANS, PlanName } from '../shared/generation';
import { Nested, Nullable } from '../validation';
import { STRIPE_EVENT_OUTCOMES } from './payments.replies';
import type {
  StripeEventOutcome,
  StripeEventReply,
  CreditPackView,
  PurchaseView,
  ListPurchasesReply,
  PaymentsOverview,
  SubscriptionView,
  TopUpView,
  SubscribeReply,
  RestrictionView,
  CheckoutReply,
  PortalReply,
  InvoiceView,
  ListInvoicesReply,
} from './payments.replies';

export * from './payments.replies';

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

/** The account's invoices at Stripe, newest first (`billing.payments.invoices`). */
export class ListInvoicesRequest {
  @IsString() accountId!: string;
  @IsNumber() limit!: number;
}

/** The account's pack purchases, newest first (`billing.payments.purchases`). */
export class ListPurchasesRequest {
  @IsString() accountId!: string;
  @IsNumber() limit!: number;
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

export class InvoiceViewPayload implements InvoiceView {
  @IsString() id!: string;
  @Nullable() @IsString() number!: string | null;
  @Nullable() @IsString() status!: string | null;
  @IsNumber() amount_due!: number;
  @IsNumber() amount_paid!: number;
  @IsString() currency!: string;
  @IsString() created!: string;
  @Nullable() @IsString() hosted_invoice_url!: string | null;
  @Nullable() @IsString() invoice_pdf!: string | null;
}

export class ListInvoicesReplyPayload implements ListInvoicesReply {
  @Nested(() => InvoiceViewPayload, { each: true }) data!: InvoiceViewPayload[];
}
