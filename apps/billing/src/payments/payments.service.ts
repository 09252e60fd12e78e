import { isUuid } from '@gen/contracts';
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
  SubscriptionView,
} from '@gen/contracts';
import { NotFoundError, ServiceUnavailableError, ValidationError } from '@gen/errors';
import { BillingAccountsRepository } from '../accounts/billing-accounts.repository';
import type { CreditPack, Purchase } from './payment-records';
import { PaymentsRepository } from './payments.repository';
import { TopUpsService } from './top-ups.service';
import { callStripe, PAYMENTS_SETTINGS, STRIPE_API, stripeOrOff } from './stripe-api';
import { SubscriptionsRepository, toSubscriptionView } from './subscriptions.repository';

const PACK_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const CURRENCY = /^[a-z]{3}$/;
export const MAX_PURCHASES_PAGE = 100;
const PAYMENTS_OFF = 'Payments are not enabled on this service; ask the operator to add credits (PAYMENTS_PROVIDER=none).';

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
  if (!isUuid(accountId)) throw new NotFoundError('No billing account for this account.');
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

/**
 * Money through Stripe (docs/operations/payments.md): credit packs bought with Checkout, the
 * customer portal, invoices and the account's Stripe customer; the events that grant what was paid
 * for are PaymentEventsService's. Billing is the only service that calls Stripe's API; the gateway
 * checks the webhook signatures and hands events here.
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

  /** A Checkout Session (payment mode) for one pack; its completion grants the credits (PaymentEventsService). */
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

  /** What the operator's `accounts show` tells of the account at Stripe. */
  async stripeStatus(accountId: string): Promise<{ customer_id: string | null; subscription: SubscriptionView | null; restriction: string | null }> {
    const id = checkAccount(accountId);
    const [customer, subscription, restriction] = await Promise.all([this.repository.customerOf(id), this.subscriptions.subscriptionOf(id), this.repository.restriction(id)]);
    return { customer_id: customer, subscription: subscription && toSubscriptionView(subscription), restriction: restriction?.message ?? null };
  }

  async listPacks(): Promise<CreditPack[]> {
    return this.repository.packs(false);
  }

  async savePack(pack: CreditPack): Promise<CreditPack> {
    const checked = checkPack(pack);
    await this.repository.savePack(checked);
    return checked;
  }

  /** The operator's `accounts unrestrict`: false when the account was not restricted. */
  async liftRestriction(accountId: string): Promise<boolean> {
    return this.repository.liftRestriction(checkAccount(accountId));
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
    return stripeOrOff(this.stripe, PAYMENTS_OFF);
  }

  private call<T>(work: () => Promise<T>): Promise<T> {
    return callStripe(this.logger, work);
  }
}
