import { isUuid } from '@gen/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import type { StripeEventReply } from '@gen/contracts';
import { ValidationError } from '@gen/errors';
import { formatMoney } from './money';
import type { StripeEventRecord } from './payment-records';
import { PaymentsRepository } from './payments.repository';
import { callStripe, STRIPE_API, stripeId, stripeOrOff } from './stripe-api';

/** A Stripe event as billing reads it: the envelope fields, and the object it is about. */
export interface ParsedStripeEvent {
  record: StripeEventRecord;
  object: Record<string, unknown>;
}

/** The fields of Stripe's Event object billing needs, checked; a signed event without them is refused (4xx, nothing changes). */
export function parseStripeEvent(event: Record<string, unknown>): ParsedStripeEvent {
  const data = event.data as { object?: unknown } | undefined;
  if (
    typeof event.id !== 'string' || !/^evt_\w{1,200}$/.test(event.id) ||
    typeof event.type !== 'string' || event.type.length === 0 || event.type.length > 200 ||
    typeof event.created !== 'number' || !Number.isSafeInteger(event.created) || event.created <= 0 ||
    typeof data !== 'object' || data === null || typeof data.object !== 'object' || data.object === null
  ) {
    throw new ValidationError('Not a Stripe event: it needs an id (evt_...), a type, a created time and data.object.');
  }
  return { record: { eventId: event.id, type: event.type, created: new Date(event.created * 1000) }, object: data.object as Record<string, unknown> };
}

/**
 * The Stripe events about payments (docs/operations/payments.md): a paid credit-pack Checkout grants
 * its credits, a refund takes them back, a dispute restricts the account. Each event id is handled
 * once; the subscriptions side (SubscriptionsService) records the events it ignores here too.
 */
@Injectable()
export class PaymentEventsService {
  private readonly logger = new Logger(PaymentEventsService.name);

  constructor(
    private readonly repository: PaymentsRepository,
    @Inject(STRIPE_API) private readonly stripe: Stripe | null,
  ) {}

  /**
   * A verified Stripe event about a payment (StripeEventsService routes subscription events
   * elsewhere). Each event id is handled once (`stripe_events`); types billing does not act on are
   * stored as ignored, so a redelivery is a duplicate too.
   */
  async onPaymentEvent(event: ParsedStripeEvent): Promise<StripeEventReply> {
    switch (event.record.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        return this.onCheckoutPaid(event);
      case 'charge.refunded':
        return this.onRefund(event);
      case 'charge.dispute.created':
        return this.onDispute(event);
      default:
        return this.ignoreEvent(event, 'ignored: type not handled');
    }
  }

  /** Whether the event was handled before (a cheap check before calling Stripe; the event's insert decides). */
  eventSeen(eventId: string): Promise<boolean> {
    return this.repository.eventSeen(eventId);
  }

  /** Stores an event that changes nothing (its next delivery is a duplicate). */
  async ignoreEvent(event: ParsedStripeEvent, why: string): Promise<StripeEventReply> {
    return { outcome: (await this.repository.recordEvent(event.record, why)) ? 'ignored' : 'duplicate' };
  }

  private async onCheckoutPaid(event: ParsedStripeEvent): Promise<StripeEventReply> {
    const session = event.object as Partial<Stripe.Checkout.Session>;
    const metadata = session.metadata ?? {};
    const credits = Number(metadata.credits);
    if (session.mode !== 'payment' || typeof session.id !== 'string' || !isUuid(metadata.account_id) || typeof metadata.pack_id !== 'string' || !Number.isSafeInteger(credits) || credits <= 0) {
      return this.ignoreEvent(event, 'ignored: not a credit pack checkout');
    }
    // Delayed methods (bank debits) complete unpaid; their async_payment_succeeded event grants.
    if (session.payment_status !== 'paid') return this.ignoreEvent(event, 'ignored: not paid yet');
    if (await this.repository.eventSeen(event.record.eventId)) return { outcome: 'duplicate' };
    const paymentIntentId = stripeId(session.payment_intent);
    const paid = paymentIntentId ? await this.paymentOf(paymentIntentId) : null;
    const charge = paid?.charge ?? null;
    const outcome = await this.repository.grantPurchase(
      event.record,
      {
        checkoutSessionId: session.id,
        accountId: metadata.account_id as string,
        packId: metadata.pack_id,
        credits,
        amount: session.amount_total ?? 0,
        currency: session.currency ?? '',
        paymentIntentId,
        chargeId: charge?.id ?? null,
        receiptUrl: charge?.receipt_url ?? null,
      },
      [
        `Purchase: credit pack "${metadata.pack_id}" (Stripe checkout ${session.id}`,
        paymentIntentId ? `, payment ${paymentIntentId}` : '',
        ')',
        charge?.receipt_url ? `; receipt ${charge.receipt_url}` : '',
      ].join(''),
      paid?.paymentMethod ?? null,
    );
    if (outcome === 'no-account') {
      this.logger.error({ eventId: event.record.eventId, session: session.id, accountId: metadata.account_id }, 'paid checkout for an account billing does not know; nothing granted');
      return { outcome: 'ignored' };
    }
    if (outcome === 'applied') this.logger.log({ eventId: event.record.eventId, session: session.id, accountId: metadata.account_id, credits }, 'credit pack purchased');
    return { outcome };
  }

  /**
   * `charge.refunded`: the refunded share of a pack's credits is taken back, never below zero; what
   * was spent already restricts the account (its submits get 402) until the operator lifts it.
   */
  private async onRefund(event: ParsedStripeEvent): Promise<StripeEventReply> {
    const charge = event.object as Partial<Stripe.Charge>;
    if (typeof charge.id !== 'string' || typeof charge.amount_refunded !== 'number') return this.ignoreEvent(event, 'ignored: not a charge');
    const outcome = await this.repository.takeBackRefund(
      event.record,
      { paymentIntentId: stripeId(charge.payment_intent), chargeId: charge.id, amountRefunded: charge.amount_refunded },
      ({ purchase, taken, shortfall }) => {
        const refunded = `${formatMoney(charge.amount_refunded ?? 0, purchase.currency)} of the ${formatMoney(purchase.amount, purchase.currency)} paid for the credit pack "${purchase.packId}"`;
        const restriction =
          shortfall > 0
            ? `This account is restricted: a payment was refunded (${refunded}) after ${shortfall} of its credits had been spent, so they could not be taken back. ` +
              'New generations are refused until this is settled: contact the operator of this service (the Billing page says how to pay) to have the restriction lifted.'
            : null;
        return {
          ledgerNote: `Refund: ${taken} credits of credit pack "${purchase.packId}" taken back (Stripe charge ${charge.id}, checkout ${purchase.checkoutSessionId})`,
          restriction,
          notice: {
            kind: shortfall > 0 ? 'account_restricted' : 'payment_refunded',
            subject: shortfall > 0 ? 'Account restricted after a refund' : 'A payment was refunded',
            message: [
              `A payment was refunded: ${refunded}.`,
              `${taken} credits were taken back from the balance.`,
              ...(restriction ? [restriction] : []),
            ].join('\n'),
            details: { charge: charge.id, payment_intent: stripeId(charge.payment_intent), checkout_session: purchase.checkoutSessionId, amount_refunded: charge.amount_refunded, credits_taken: taken, credits_spent: shortfall },
          },
        };
      },
    );
    if (outcome.kind === 'applied') {
      this.logger.log({ eventId: event.record.eventId, charge: charge.id, accountId: outcome.accountId, taken: outcome.taken, shortfall: outcome.shortfall }, 'refund taken back');
      return { outcome: 'applied' };
    }
    return { outcome: outcome.kind === 'duplicate' ? 'duplicate' : 'ignored' };
  }

  /** `charge.dispute.created`: the account is restricted and its owners told. */
  private async onDispute(event: ParsedStripeEvent): Promise<StripeEventReply> {
    const dispute = event.object as Partial<Stripe.Dispute>;
    if (typeof dispute.id !== 'string') return this.ignoreEvent(event, 'ignored: not a dispute');
    const chargeId = stripeId(dispute.charge);
    const outcome = await this.repository.restrictForDispute(event.record, { paymentIntentId: stripeId(dispute.payment_intent), chargeId, disputeId: dispute.id }, (purchase) => {
      const amount = formatMoney(dispute.amount ?? purchase.amount, dispute.currency ?? purchase.currency);
      const restriction =
        `This account is restricted: the card holder disputed a payment of ${amount} (Stripe dispute ${dispute.id as string}). ` +
        'New generations are refused while the dispute is open: contact the operator of this service to resolve it.';
      return {
        restriction,
        notice: {
          kind: 'payment_disputed',
          subject: 'A payment was disputed: account restricted',
          message: `The card holder disputed a payment of ${amount} for the credit pack "${purchase.packId}" (reason: ${dispute.reason ?? 'not given'}).\n${restriction}`,
          details: { dispute: dispute.id, charge: chargeId, checkout_session: purchase.checkoutSessionId, amount: dispute.amount, reason: dispute.reason ?? null },
        },
      };
    });
    if (outcome.kind === 'applied') {
      this.logger.warn({ eventId: event.record.eventId, dispute: dispute.id, accountId: outcome.accountId }, 'payment disputed; account restricted');
      return { outcome: 'applied' };
    }
    return { outcome: outcome.kind === 'duplicate' ? 'duplicate' : 'ignored' };
  }

  /**
   * The payment's charge (its id and receipt link) and the card it saved. Stripe unreachable: 503,
   * and Stripe delivers the event again.
   */
  private async paymentOf(paymentIntentId: string): Promise<{ charge: Stripe.Charge | null; paymentMethod: string | null }> {
    const intent = await this.call(() => this.api().paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge'] }));
    return {
      charge: typeof intent.latest_charge === 'object' ? intent.latest_charge : null,
      paymentMethod: intent.setup_future_usage === 'off_session' ? stripeId(intent.payment_method) : null,
    };
  }

  private api(): Stripe {
    // Events only arrive with PAYMENTS_PROVIDER=stripe (StripeEventsService refuses them otherwise).
    return stripeOrOff(this.stripe, 'Payments are not enabled on this service (PAYMENTS_PROVIDER=none).');
  }

  private call<T>(work: () => Promise<T>): Promise<T> {
    return callStripe(this.logger, work);
  }
}
