import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import type { BillingPaymentsSettings } from '@gen/config';
import type {
  CheckoutReply,
  CreateCheckoutRequest,
  CreatePortalRequest,
  CreditPackView,
  ListInvoicesReply,
  ListInvoicesRequest,
  ListPurchasesReply,
  ListPurchasesRequest,
  PaymentsOverview,
  PaymentsOverviewRequest,
  PortalReply,
  PurchaseView,
  StripeEventReply,
  SubscriptionView,
} from '@gen/contracts';
import { DomainError, NotFoundError, ServiceUnavailableError, ValidationError } from '@gen/errors';
import { BillingAccountsRepository } from '../accounts/billing-accounts.repository';
import { formatMoney } from './money';
import { CreditPack, PaymentsRepository, Purchase, StripeEventRecord } from './payments.repository';
import { TopUpsService } from './top-ups.service';
import { PAYMENTS_SETTINGS, STRIPE_API } from './stripe-api';
import { SubscriptionsRepository, toSubscriptionView } from './subscriptions.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PACK_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const CURRENCY = /^[a-z]{3}$/;
export const MAX_PURCHASES_PAGE = 100;
const PAYMENTS_OFF = 'Payments are not enabled on this service; ask the operator to add credits (PAYMENTS_PROVIDER=none).';

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

/** A pack as the operator defines it (CLI `packs set`), checked. */
export function checkPack(pack: CreditPack): CreditPack {
  if (!PACK_ID.test(pack.id)) throw new ValidationError('pack id: lowercase letters, digits, "-" and "_", at most 64, starting with a letter or digit.');
  if (pack.name.trim().length === 0 || pack.name.length > 100) throw new ValidationError('pack name: 1 to 100 characters.');
  if (!Number.isSafeInteger(pack.credits) || pack.credits < 1 || pack.credits > 2_000_000_000) throw new ValidationError('pack credits: a whole number from 1 to 2000000000.');
  if (!Number.isSafeInteger(pack.unitAmount) || pack.unitAmount < 1 || pack.unitAmount > 99_999_999) throw new ValidationError('pack price: a whole number of the currency\'s smallest unit (cents), from 1 to 99999999.');
  if (!CURRENCY.test(pack.currency)) throw new ValidationError('pack currency: a three-letter ISO code in lowercase, e.g. usd.');
  return { ...pack, name: pack.name.trim() };
}

function checkAccount(accountId: unknown): string {
  if (typeof accountId !== 'string' || !UUID.test(accountId)) throw new NotFoundError('No billing account for this account.');
  return accountId;
}

function checkReturnUrl(name: string, value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // refused below
  }
  throw new ValidationError(`${name}: an http or https URL.`);
}

const packView = (pack: CreditPack): CreditPackView => ({ id: pack.id, name: pack.name, credits: pack.credits, unit_amount: pack.unitAmount, currency: pack.currency });

const purchaseView = (p: Purchase): PurchaseView => ({
  checkout_session_id: p.checkoutSessionId,
  pack_id: p.packId,
  credits: p.credits,
  amount: p.amount,
  currency: p.currency,
  payment_intent_id: p.paymentIntentId,
  receipt_url: p.receiptUrl,
  refunded_credits: p.refundedCredits,
  created_at: p.createdAt.toISOString(),
});

const idOf = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : null;

/**
 * Money through Stripe (docs/operations/payments.md): credit packs bought with Checkout, the
 * customer portal, and the Stripe events that grant what was paid for. Billing is the only service
 * that calls Stripe's API; the gateway checks the webhook signatures and hands events here.
 */
@Injectable()
export class PaymentsService {
  private readonly logger = new Logger(PaymentsService.name);

  constructor(
    private readonly repository: PaymentsRepository,
    private readonly accounts: BillingAccountsRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly topUps: TopUpsService,
    @Inject(STRIPE_API) private readonly stripe: Stripe | null,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: BillingPaymentsSettings,
  ) {}

  async overview(request: PaymentsOverviewRequest): Promise<PaymentsOverview> {
    const accountId = checkAccount(request.accountId);
    const account = await this.accounts.findAccount(accountId);
    if (!account) throw new NotFoundError('No billing account for this account.');
    const [packs, customer, restriction, subscription, prices] = await Promise.all([
      this.repository.packs(true),
      this.repository.customerOf(accountId),
      this.repository.restriction(accountId),
      this.subscriptions.subscriptionOf(accountId),
      this.subscriptions.planPrices(),
    ]);
    const topUp = this.settings.provider === 'stripe' ? await this.topUps.view(accountId) : null;
    return {
      provider: this.settings.provider,
      available: account.available,
      packs: packs.map(packView),
      stripe_customer_id: customer,
      subscription: subscription && toSubscriptionView(subscription),
      plans: prices.map((p) => p.plan),
      top_up: topUp,
      restriction: restriction && { reason: restriction.reason, message: restriction.message, since: restriction.since.toISOString() },
    };
  }

  async purchases(request: ListPurchasesRequest): Promise<ListPurchasesReply> {
    const accountId = checkAccount(request.accountId);
    if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > MAX_PURCHASES_PAGE) {
      throw new ValidationError(`limit must be an integer between 1 and ${MAX_PURCHASES_PAGE}`);
    }
    return { data: (await this.repository.purchases(accountId, request.limit)).map(purchaseView) };
  }

  /** The account's invoices at Stripe (subscriptions, top-ups), newest first; none before it has a Stripe customer. */
  async invoices(request: ListInvoicesRequest): Promise<ListInvoicesReply> {
    const accountId = checkAccount(request.accountId);
    if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > MAX_PURCHASES_PAGE) {
      throw new ValidationError(`limit must be an integer between 1 and ${MAX_PURCHASES_PAGE}`);
    }
    const stripe = this.api();
    const customer = await this.repository.customerOf(accountId);
    if (!customer) return { data: [] };
    const page = await this.call(() => stripe.invoices.list({ customer, limit: request.limit }));
    return {
      data: page.data.map((invoice) => ({
        id: invoice.id ?? '',
        number: invoice.number ?? null,
        status: invoice.status ?? null,
        amount_due: invoice.amount_due,
        amount_paid: invoice.amount_paid,
        currency: invoice.currency,
        created: new Date(invoice.created * 1000).toISOString(),
        hosted_invoice_url: invoice.hosted_invoice_url ?? null,
        invoice_pdf: invoice.invoice_pdf ?? null,
      })),
    };
  }

  /** A Checkout Session (payment mode) for one pack; its completion grants the credits (onCheckoutPaid). */
  async checkout(request: CreateCheckoutRequest): Promise<CheckoutReply> {
    const stripe = this.api();
    const accountId = checkAccount(request.accountId);
    const successUrl = checkReturnUrl('successUrl', request.successUrl);
    const cancelUrl = checkReturnUrl('cancelUrl', request.cancelUrl);
    const pack = await this.repository.pack(request.packId);
    if (!pack || !pack.active) throw new NotFoundError(`No credit pack "${request.packId}" is on sale.`);
    const customer = await this.customerFor(accountId, request.email);
    const metadata = { account_id: accountId, pack_id: pack.id, credits: String(pack.credits) };
    const session = await this.call(() =>
      stripe.checkout.sessions.create({
        mode: 'payment',
        customer,
        client_reference_id: accountId,
        line_items: [{ quantity: 1, price_data: { currency: pack.currency, unit_amount: pack.unitAmount, product_data: { name: `${pack.name}: ${pack.credits} credits` } } }],
        metadata,
        // The card is kept for automatic top-ups (off-session payments) and receipts go to the customer.
        payment_intent_data: { setup_future_usage: 'off_session', metadata },
        success_url: successUrl,
        cancel_url: cancelUrl,
      }),
    );
    if (!session.url) throw new ServiceUnavailableError('Stripe answered a Checkout Session without a URL; retry shortly.');
    return { checkout_session_id: session.id, url: session.url };
  }

  /** A link to Stripe's customer portal (cards, invoices, receipts). */
  async portal(request: CreatePortalRequest): Promise<PortalReply> {
    const stripe = this.api();
    const accountId = checkAccount(request.accountId);
    const returnUrl = checkReturnUrl('returnUrl', request.returnUrl);
    const customer = await this.customerFor(accountId, request.email);
    const session = await this.call(() => stripe.billingPortal.sessions.create({ customer, return_url: returnUrl }));
    return { url: session.url };
  }

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

  /** What the operator's `accounts show` tells of the account at Stripe. */
  async stripeStatus(accountId: string): Promise<{ customer_id: string | null; subscription: SubscriptionView | null; restriction: string | null }> {
    const id = checkAccount(accountId);
    const [customer, subscription, restriction] = await Promise.all([this.repository.customerOf(id), this.subscriptions.subscriptionOf(id), this.repository.restriction(id)]);
    return { customer_id: customer, subscription: subscription && toSubscriptionView(subscription), restriction: restriction?.message ?? null };
  }

  /** Whether the event was handled before (a cheap check before calling Stripe; the event's insert decides). */
  eventSeen(eventId: string): Promise<boolean> {
    return this.repository.eventSeen(eventId);
  }

  async listPacks(): Promise<CreditPack[]> {
    return this.repository.packs(false);
  }

  async savePack(pack: CreditPack): Promise<CreditPack> {
    const checked = checkPack(pack);
    await this.repository.savePack(checked);
    return checked;
  }

  private async onCheckoutPaid(event: ParsedStripeEvent): Promise<StripeEventReply> {
    const session = event.object as Partial<Stripe.Checkout.Session>;
    const metadata = session.metadata ?? {};
    const credits = Number(metadata.credits);
    if (session.mode !== 'payment' || typeof session.id !== 'string' || !UUID.test(metadata.account_id ?? '') || typeof metadata.pack_id !== 'string' || !Number.isSafeInteger(credits) || credits <= 0) {
      return this.ignoreEvent(event, 'ignored: not a credit pack checkout');
    }
    // Delayed methods (bank debits) complete unpaid; their async_payment_succeeded event grants.
    if (session.payment_status !== 'paid') return this.ignoreEvent(event, 'ignored: not paid yet');
    if (await this.repository.eventSeen(event.record.eventId)) return { outcome: 'duplicate' };
    const paymentIntentId = idOf(session.payment_intent);
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
      { paymentIntentId: idOf(charge.payment_intent), chargeId: charge.id, amountRefunded: charge.amount_refunded },
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
            details: { charge: charge.id, payment_intent: idOf(charge.payment_intent), checkout_session: purchase.checkoutSessionId, amount_refunded: charge.amount_refunded, credits_taken: taken, credits_spent: shortfall },
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
    const chargeId = idOf(dispute.charge);
    const outcome = await this.repository.restrictForDispute(event.record, { paymentIntentId: idOf(dispute.payment_intent), chargeId, disputeId: dispute.id }, (purchase) => {
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

  /** The operator's `accounts unrestrict`: false when the account was not restricted. */
  async liftRestriction(accountId: string): Promise<boolean> {
    return this.repository.liftRestriction(checkAccount(accountId));
  }

  /** Stores an event that changes nothing (its next delivery is a duplicate). */
  async ignoreEvent(event: ParsedStripeEvent, why: string): Promise<StripeEventReply> {
    return { outcome: (await this.repository.recordEvent(event.record, why)) ? 'ignored' : 'duplicate' };
  }

  /**
   * The payment's charge (its id and receipt link) and the card it saved. Stripe unreachable: 503,
   * and Stripe delivers the event again.
   */
  private async paymentOf(paymentIntentId: string): Promise<{ charge: Stripe.Charge | null; paymentMethod: string | null }> {
    const intent = await this.call(() => this.api().paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge'] }));
    return {
      charge: typeof intent.latest_charge === 'object' ? intent.latest_charge : null,
      paymentMethod: intent.setup_future_usage === 'off_session' ? idOf(intent.payment_method) : null,
    };
  }

  /** The account's Stripe customer, created at Stripe on first use. */
  async customerFor(accountId: string, email: string | undefined): Promise<string> {
    const known = await this.repository.customerOf(accountId);
    if (known) return known;
    if (!(await this.accounts.findAccount(accountId))) throw new NotFoundError('No billing account for this account.');
    // The idempotency key makes two first checkouts at once create one customer at Stripe.
    const customer = await this.call(() =>
      this.api().customers.create({ email, metadata: { account_id: accountId } }, { idempotencyKey: `customer-${accountId}` }),
    );
    return this.repository.linkCustomer(accountId, customer.id);
  }

  private api(): Stripe {
    if (!this.stripe) throw new NotFoundError(PAYMENTS_OFF);
    return this.stripe;
  }

  /** A call to Stripe: its refusals and outages become a 503 that names Stripe (never a 500). */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof DomainError) throw error;
      const stripeError = error as { type?: string; message?: string; statusCode?: number };
      this.logger.warn({ type: stripeError.type, status: stripeError.statusCode, message: stripeError.message }, 'Stripe API call failed');
      throw new ServiceUnavailableError(`Stripe did not complete the request (${stripeError.message ?? 'no answer'}); retry shortly.`, 5);
    }
  }
}
