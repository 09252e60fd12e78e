import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { isUuid, PlanName, PLANS, StripeEventReply, SubscribeReply, SubscribeRequest } from '@gen/contracts';
import { NotFoundError, ServiceUnavailableError, ValidationError } from '@gen/errors';
import { planLimits } from '../accounts/plans';
import type { StripeEventRecord } from './payment-records';
import { PaymentEventsService, type ParsedStripeEvent } from './payment-events.service';
import { PaymentsService } from './payments.service';
import { callStripe, PAYMENTS_SETTINGS, STRIPE_API, stripeId, stripeOrOff } from './stripe-api';
import { SubscriptionRow, SubscriptionsRepository, SubscriptionTransition } from './subscriptions.repository';
import type { BillingPaymentsSettings } from '@gen/config';

const RANK: Record<PlanName, number> = { free: 0, lite: 1, pro: 2, enterprise: 3 };
const PRICE_ID = /^(price|plan)_\w{1,200}$/;
/** Stripe statuses in which the plan is paid for (or on trial). */
const PAID = ['active', 'trialing'];
/** Statuses after which the subscription is over for good. */
const ENDED = ['canceled', 'incomplete_expired'];

/** What billing reads of a Stripe Subscription (the period is on the item in newer API versions, on the subscription in older ones). */
export interface SubscriptionState {
  id: string;
  status: string;
  priceId: string | null;
  itemId: string | null;
  accountId: string | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
}

const date = (seconds: unknown) => (typeof seconds === 'number' ? new Date(seconds * 1000) : null);
const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : 'the end of the period');

export function subscriptionState(sub: Stripe.Subscription): SubscriptionState {
  const item = sub.items?.data?.[0] as (Stripe.SubscriptionItem & { current_period_start?: number; current_period_end?: number }) | undefined;
  const legacy = sub as unknown as { current_period_start?: number; current_period_end?: number };
  return {
    id: sub.id,
    status: sub.status,
    priceId: item?.price?.id ?? null,
    itemId: item?.id ?? null,
    accountId: typeof sub.metadata?.account_id === 'string' ? sub.metadata.account_id : null,
    currentPeriodStart: date(item?.current_period_start ?? legacy.current_period_start),
    currentPeriodEnd: date(item?.current_period_end ?? legacy.current_period_end),
    cancelAtPeriodEnd: sub.cancel_at_period_end === true,
  };
}

/** The subscription's row as it is now at Stripe, keeping what billing decided (downgrade, grace). */
function rowOf(accountId: string, state: SubscriptionState, plan: PlanName, previous: SubscriptionRow | null): SubscriptionRow {
  return {
    accountId,
    subscriptionId: state.id,
    status: state.status,
    plan,
    currentPeriodEnd: state.currentPeriodEnd,
    cancelAtPeriodEnd: state.cancelAtPeriodEnd,
    downgradeAt: previous?.subscriptionId === state.id ? previous.downgradeAt : null,
    graceUntil: previous?.subscriptionId === state.id ? previous.graceUntil : null,
  };
}

const withLimits = (plan: PlanName) => ({ plan, ...planLimits(plan, {}) });

/**
 * Plans as Stripe subscriptions (docs/operations/payments.md, "Subscriptions"). Every event about a
 * subscription reads the subscription from Stripe's API and applies what it is now, so an event that
 * arrives late or twice cannot roll a plan back. An upgrade applies at once (Stripe prorates), a
 * downgrade at the end of the period paid for; a failed renewal starts a grace period, past which the
 * sweep (SubscriptionSweeper) moves the account to Free. Plans change like `plans set` writes them.
 */
@Injectable()
export class SubscriptionsService {
  private readonly logger = new Logger(SubscriptionsService.name);

  constructor(
    private readonly repository: SubscriptionsRepository,
    private readonly payments: PaymentsService,
    private readonly events: PaymentEventsService,
    @Inject(STRIPE_API) private readonly stripe: Stripe | null,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: BillingPaymentsSettings,
  ) {}

  async planPrices(): Promise<Array<{ plan: PlanName; priceId: string }>> {
    return this.repository.planPrices();
  }

  /** The operator's `plans price`: the Stripe Price a paid plan is sold at. */
  async setPlanPrice(plan: string, priceId: string): Promise<{ plan: PlanName; priceId: string }> {
    if (!(PLANS as readonly string[]).includes(plan) || plan === 'free') throw new ValidationError(`plan: one of ${PLANS.filter((p) => p !== 'free').join(', ')} (Free has no price).`);
    if (!PRICE_ID.test(priceId)) throw new ValidationError('price: a Stripe Price id (price_...).');
    await this.repository.setPlanPrice(plan as PlanName, priceId);
    return { plan: plan as PlanName, priceId };
  }

  /**
   * The owner picks a plan on the Billing page. No subscription yet: a Checkout Session in
   * subscription mode. One already: its price changes, prorated at once for an upgrade, from the next
   * period for a downgrade; Free cancels it at the period's end.
   */
  async subscribe(request: SubscribeRequest): Promise<SubscribeReply> {
    const stripe = this.api();
    if (!isUuid(request.accountId)) throw new NotFoundError('No billing account for this account.');
    const target = request.plan as PlanName;
    if (!(PLANS as readonly string[]).includes(target)) throw new ValidationError(`plan: one of ${PLANS.join(', ')}.`);
    const prices = await this.repository.planPrices();
    const price = prices.find((p) => p.plan === target)?.priceId;
    if (target !== 'free' && !price) throw new NotFoundError(`The ${target} plan is not sold through Stripe here; ask the operator.`);
    const row = await this.repository.subscriptionOf(request.accountId);
    const live = row && !ENDED.includes(row.status) ? await this.call(() => stripe.subscriptions.retrieve(row.subscriptionId)) : null;
    if (!live) {
      if (target === 'free') throw new ValidationError('The account has no subscription to end: it pays nothing for its plan.');
      const customer = await this.payments.customerFor(request.accountId, request.email);
      const session = await this.call(() =>
        stripe.checkout.sessions.create({
          mode: 'subscription',
          customer,
          client_reference_id: request.accountId,
          line_items: [{ price, quantity: 1 }],
          metadata: { account_id: request.accountId, plan: target },
          subscription_data: { metadata: { account_id: request.accountId } },
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
        }),
      );
      if (!session.url) throw new ServiceUnavailableError('Stripe answered a Checkout Session without a URL; retry shortly.');
      return { effective: 'checkout', url: session.url, plan: target };
    }
    const state = subscriptionState(live);
    if (target === 'free') {
      const updated = await this.call(() => stripe.subscriptions.update(state.id, { cancel_at_period_end: true }));
      await this.apply(null, request.accountId, subscriptionState(updated));
      return { effective: 'period_end', url: null, plan: 'free' };
    }
    const current = prices.find((p) => p.priceId === state.priceId)?.plan ?? 'free';
    const upgrade = RANK[target] > RANK[current];
    const updated = await this.call(() =>
      stripe.subscriptions.update(state.id, {
        items: [{ id: state.itemId ?? undefined, price }],
        cancel_at_period_end: false,
        // An upgrade is charged now for the rest of the period; a downgrade costs less from the next one.
        proration_behavior: upgrade ? 'always_invoice' : 'none',
        metadata: { account_id: request.accountId },
      }),
    );
    await this.apply(null, request.accountId, subscriptionState(updated));
    return { effective: upgrade ? 'now' : 'period_end', url: null, plan: target };
  }

  /** `checkout.session.completed` in subscription mode, `customer.subscription.*`, `invoice.paid`, `invoice.payment_failed`. */
  async onEvent(event: ParsedStripeEvent): Promise<StripeEventReply> {
    const object = event.object;
    let subscriptionId: string | null = null;
    if (event.record.type === 'checkout.session.completed') subscriptionId = stripeId(object.subscription);
    else if (event.record.type.startsWith('customer.subscription.')) subscriptionId = typeof object.id === 'string' ? object.id : null;
    else subscriptionId = invoiceSubscription(object);
    if (!subscriptionId) return this.events.ignoreEvent(event, 'ignored: no subscription');
    if (await this.events.eventSeen(event.record.eventId)) return { outcome: 'duplicate' };
    // The subscription as it is now, whatever order the events come in.
    const state = subscriptionState(await this.call(() => this.api().subscriptions.retrieve(subscriptionId)));
    const accountId = state.accountId ?? (await this.repository.accountOfSubscription(state.id));
    if (!isUuid(accountId)) return this.events.ignoreEvent(event, 'ignored: subscription of no known account');
    const outcome = await this.apply(event.record, accountId, state, event.record.type === 'invoice.payment_failed');
    if (outcome === 'duplicate') return { outcome: 'duplicate' };
    return { outcome: outcome === 'applied' ? 'applied' : 'ignored' };
  }

  /**
   * Applies the subscription as it is at Stripe now. `failed`: a renewal's payment failed (starts the
   * grace period while Stripe retries the card).
   */
  async apply(event: StripeEventRecord | null, accountId: string, state: SubscriptionState, failed = false) {
    const prices = await this.repository.planPrices();
    const mapped = prices.find((p) => p.priceId === state.priceId)?.plan ?? null;
    const now = new Date();
    const graceMs = this.settings.subscriptionGraceHours * 3_600_000;
    return this.repository.transition(event, accountId, ({ plan, row }): SubscriptionTransition | null => {
      if (row && row.subscriptionId !== state.id && ENDED.includes(state.status)) return null; // an old subscription's end: not this one's
      if (ENDED.includes(state.status)) {
        // The row keeps the plan the subscription was for; the account goes to Free.
        const next = rowOf(accountId, state, row?.plan ?? mapped ?? 'free', row);
        return {
          row: { ...next, downgradeAt: null, graceUntil: null },
          plan: withLimits('free'),
          notice: plan === 'free' ? undefined : notice('subscription_changed', 'Subscription ended: now on the Free plan', `The subscription ended, so the account is on the Free plan from now on (${PLAN_LIMITS_TEXT('free')}). Choose a plan on the Billing page to subscribe again.`, state),
        };
      }
      if (!mapped) return null; // a price the operator does not sell a plan at
      const next = rowOf(accountId, state, mapped, row);
      if (failed || ['past_due', 'unpaid'].includes(state.status)) {
        if (next.graceUntil) return { row: next };
        const graceUntil = new Date(now.getTime() + graceMs);
        return {
          row: { ...next, graceUntil },
          notice: notice('renewal_failed', 'Renewal failed: update your card', `The payment renewing the ${mapped} plan failed. Stripe tries the card again over the next days; update it in the portal (Billing page, "Manage cards and invoices"). If the plan is still unpaid on ${graceUntil.toISOString().replace('.000Z', 'Z')}, the account moves to the Free plan.`, state),
        };
      }
      if (!PAID.includes(state.status)) return { row: next };
      const recovered = next.graceUntil !== null;
      next.graceUntil = null;
      const periodOver = next.downgradeAt !== null && (next.downgradeAt <= now || (state.currentPeriodStart !== null && state.currentPeriodStart >= next.downgradeAt));
      if (RANK[mapped] >= RANK[plan] || periodOver) {
        next.downgradeAt = null;
        const changed = mapped !== plan;
        return {
          row: next,
          plan: withLimits(mapped),
          notice: changed
            ? notice('subscription_changed', `Plan changed: now ${mapped}`, `The account is on the ${mapped} plan from now on (${PLAN_LIMITS_TEXT(mapped)}).`, state)
            : recovered
              ? notice('subscription_changed', 'Renewal paid', `The renewal of the ${mapped} plan is paid; the account keeps its plan.`, state)
              : undefined,
        };
      }
      // A downgrade: the plan paid for stays until the period ends.
      if (next.downgradeAt) return { row: next };
      next.downgradeAt = state.currentPeriodEnd ?? now;
      return {
        row: next,
        notice: notice('subscription_changed', `Plan change to ${mapped} scheduled`, `The account keeps the ${plan} plan until ${day(next.downgradeAt)}, the end of the period paid for, then moves to the ${mapped} plan (${PLAN_LIMITS_TEXT(mapped)}).`, state),
      };
    });
  }

  /** The sweep: downgrades whose period ended, and grace periods that ended unpaid (Free; the subscription is canceled at Stripe). */
  async sweep(now = new Date()): Promise<number> {
    if (!this.stripe) return 0;
    let changed = 0;
    for (const accountId of await this.repository.due(now)) {
      const outcome = await this.repository.transition(null, accountId, ({ plan, row }) => {
        if (!row) return null;
        if (row.graceUntil && row.graceUntil <= now) {
          return {
            row: { ...row, graceUntil: null, downgradeAt: null, status: 'canceled' },
            plan: withLimits('free'),
            notice: notice('subscription_changed', 'Renewal unpaid: now on the Free plan', `The renewal of the ${row.plan} plan was not paid by the end of the grace period, so the account is on the Free plan from now on (${PLAN_LIMITS_TEXT('free')}) and the subscription is canceled. Choose a plan on the Billing page to subscribe again.`, { id: row.subscriptionId }),
          };
        }
        if (row.downgradeAt && row.downgradeAt <= now) {
          return {
            row: { ...row, downgradeAt: null },
            plan: withLimits(row.plan),
            notice: row.plan === plan ? undefined : notice('subscription_changed', `Plan changed: now ${row.plan}`, `The period paid for ended: the account is on the ${row.plan} plan from now on (${PLAN_LIMITS_TEXT(row.plan)}).`, { id: row.subscriptionId }),
          };
        }
        return null;
      });
      if (outcome !== 'applied') continue;
      changed += 1;
      const row = await this.repository.subscriptionOf(accountId);
      if (row?.status === 'canceled') {
        // Stop charging for a plan the account no longer has; a failure is retried by Stripe's own dunning end.
        await this.api().subscriptions.cancel(row.subscriptionId).catch((error: unknown) => this.logger.warn({ err: error, subscription: row.subscriptionId }, 'could not cancel the unpaid subscription at Stripe'));
      }
    }
    return changed;
  }

  private api(): Stripe {
    return stripeOrOff(this.stripe, 'Payments are not enabled on this service; ask the operator to change the plan (PAYMENTS_PROVIDER=none).');
  }

  private call<T>(work: () => Promise<T>): Promise<T> {
    return callStripe(this.logger, work);
  }
}

/** An invoice's subscription: `subscription` in older API versions, `parent.subscription_details.subscription` in newer ones. */
function invoiceSubscription(invoice: Record<string, unknown>): string | null {
  const parent = invoice.parent as { subscription_details?: { subscription?: unknown } } | undefined;
  return stripeId(invoice.subscription) ?? stripeId(parent?.subscription_details?.subscription);
}

function PLAN_LIMITS_TEXT(plan: PlanName): string {
  const limits = planLimits(plan, {});
  return `${limits.rpm} requests per minute, ${limits.parallel} parallel task${limits.parallel === 1 ? '' : 's'}`;
}

function notice(kind: 'subscription_changed' | 'renewal_failed', subject: string, message: string, state: { id: string; status?: string }) {
  return { kind, subject, message, details: { subscription: state.id, status: state.status ?? null } };
}
