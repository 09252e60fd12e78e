import { createHmac, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Stripe's API, written from its API reference, that the real `stripe` package talks
 * to (STRIPE_API_HOST/PORT/PROTOCOL): Customers, Checkout Sessions (payment mode), PaymentIntents
 * (with their latest Charge), Billing Portal sessions. Requests are form-encoded with bracketed keys
 * (`line_items[0][price_data][currency]=usd`), answers are JSON objects with `id` and `object`,
 * errors are `{"error": {"type", "code", "message", "param"}}` with Stripe's statuses, and an
 * `Idempotency-Key` replays the first answer. It also plays Stripe's side of webhooks: the events a
 * payment causes, signed with Stripe's scheme (`Stripe-Signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<payload>" keyed with the endpoint secret>`), and delivers them.
 */

type Json = Record<string, unknown>;

export interface StripeStandInOptions {
  /** The secret key the service must send (`Authorization: Bearer ...`). */
  secretKey?: string;
  /** The webhook endpoint's signing secret (`whsec_...`). */
  webhookSecret?: string;
}

export interface Delivery {
  status: number;
  body: any;
}

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

/** Stripe's form encoding, read back: `a[b][0][c]=v` → `{a: {b: [{c: 'v'}]}}`; `expand[]=x` → `{expand: ['x']}`. */
export function parseStripeForm(text: string): Json {
  const root: Json = {};
  for (const pair of text.split('&').filter((p) => p.length > 0)) {
    const [rawKey, rawValue = ''] = pair.split('=');
    const key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
    const value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    const path = [key.replace(/\[.*$/, ''), ...[...key.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1])];
    let node: any = root;
    for (let i = 0; i < path.length; i += 1) {
      const part = path[i];
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1]);
      const slot = part === '' ? (node as unknown[]).length : part;
      if (last) node[slot] = value;
      else {
        node[slot] ??= nextIsIndex ? [] : {};
        node = node[slot];
      }
    }
  }
  return root;
}

class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly extra: Json = {},
  ) {
    super(message);
  }
}

const missing = (param: string) => new StripeApiError(400, 'invalid_request_error', 'parameter_missing', `Missing required param: ${param}.`, param);
const noSuch = (what: string, id: string) => new StripeApiError(404, 'invalid_request_error', 'resource_missing', `No such ${what}: '${id}'`, 'id');

export class StripeStandIn {
  readonly secretKey: string;
  readonly webhookSecret: string;
  readonly customers = new Map<string, Json>();
  readonly checkoutSessions = new Map<string, Json>();
  readonly paymentIntents = new Map<string, Json>();
  readonly charges = new Map<string, Json>();
  readonly portalSessions = new Map<string, Json>();
  readonly prices = new Map<string, Json>();
  readonly subscriptions = new Map<string, Json>();
  readonly invoices = new Map<string, Json>();
  /** Every API request: method, path and parsed parameters. */
  readonly requests: Array<{ method: string; path: string; params: Json }> = [];
  private readonly idempotent = new Map<string, { status: number; body: Json }>();
  private server!: Server;
  port = 0;
  readonly host = '127.0.0.1';

  private constructor(options: StripeStandInOptions) {
    this.secretKey = options.secretKey ?? `sk_test_${randomBytes(12).toString('hex')}`;
    this.webhookSecret = options.webhookSecret ?? `whsec_${randomBytes(24).toString('base64url')}`;
  }

  static async start(options: StripeStandInOptions = {}): Promise<StripeStandIn> {
    const standIn = new StripeStandIn(options);
    standIn.server = createServer((req, res) => standIn.handle(req, res));
    await new Promise<void>((resolve) => standIn.server.listen(0, standIn.host, resolve));
    standIn.port = (standIn.server.address() as AddressInfo).port;
    return standIn;
  }

  /** The settings that point billing and the gateway at this stand-in. */
  env(): Record<string, string> {
    return {
      PAYMENTS_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: this.secretKey,
      STRIPE_WEBHOOK_SECRET: this.webhookSecret,
      STRIPE_API_HOST: this.host,
      STRIPE_API_PORT: String(this.port),
      STRIPE_API_PROTOCOL: 'http',
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  // --- What the customer does at Stripe, and the events Stripe sends for it ---

  /**
   * The customer pays a Checkout Session (payment mode): the PaymentIntent succeeds with a Charge
   * (its receipt URL), the session becomes complete and paid. Returns the `checkout.session.completed` event.
   */
  payCheckout(sessionId: string): Json {
    const session = this.checkoutSessions.get(sessionId);
    if (!session) throw new Error(`no checkout session ${sessionId}`);
    if (session.mode === 'subscription') return this.paySubscriptionCheckout(session);
    const intentId = newId('pi');
    const chargeId = newId('ch');
    const charge: Json = {
      id: chargeId,
      object: 'charge',
      amount: session.amount_total,
      amount_refunded: 0,
      currency: session.currency,
      customer: session.customer,
      payment_intent: intentId,
      paid: true,
      refunded: false,
      status: 'succeeded',
      receipt_url: `https://pay.stripe.com/receipts/payment/${randomBytes(16).toString('hex')}`,
      metadata: (session.payment_intent_data as Json | undefined)?.metadata ?? {},
      created: now(),
    };
    this.charges.set(chargeId, charge);
    this.paymentIntents.set(intentId, {
      id: intentId,
      object: 'payment_intent',
      amount: session.amount_total,
      currency: session.currency,
      customer: session.customer,
      status: 'succeeded',
      latest_charge: chargeId,
      payment_method: newId('pm'),
      setup_future_usage: (session.payment_intent_data as Json | undefined)?.setup_future_usage ?? null,
      metadata: (session.payment_intent_data as Json | undefined)?.metadata ?? {},
      created: now(),
    });
    Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: intentId });
    return this.event('checkout.session.completed', this.publicSession(session));
  }

  /** A recurring Price, as the operator creates it in Stripe's dashboard (a plan's price). */
  addPrice(unitAmount: number, currency = 'usd', interval = 'month'): string {
    const id = newId('price');
    this.prices.set(id, { id, object: 'price', active: true, unit_amount: unitAmount, currency, type: 'recurring', recurring: { interval, interval_count: 1 }, created: now(), livemode: false });
    return id;
  }

  /** Checkout in subscription mode paid: the subscription starts (active, a month's period). Returns `checkout.session.completed`. */
  private paySubscriptionCheckout(session: Json): Json {
    const items = session.line_items_asked as Json[];
    const price = this.prices.get(items[0].price as string)!;
    const start = now();
    const id = newId('sub');
    const subscription: Json = {
      id,
      object: 'subscription',
      customer: session.customer,
      status: 'active',
      cancel_at_period_end: false,
      metadata: (session.subscription_data as Json | undefined)?.metadata ?? {},
      created: start,
      items: { object: 'list', data: [{ id: newId('si'), object: 'subscription_item', price, quantity: 1, current_period_start: start, current_period_end: start + 30 * 86_400 }] },
      latest_invoice: null,
      livemode: false,
    };
    this.subscriptions.set(id, subscription);
    subscription.latest_invoice = this.invoice(subscription, 'subscription_create', true).id;
    Object.assign(session, { status: 'complete', payment_status: 'paid', subscription: id });
    return this.event('checkout.session.completed', this.publicSession(session));
  }

  /** A `customer.subscription.*` event with the subscription as it is now. */
  subscriptionEvent(type: 'created' | 'updated' | 'deleted', subscriptionId: string): Json {
    return this.event(`customer.subscription.${type}`, this.subscriptions.get(subscriptionId)!);
  }

  /**
   * The period ends and Stripe renews: the next period starts where the last ended. Paid: the
   * subscription stays active (`invoice.paid`); the card declined: it is `past_due` (`invoice.payment_failed`).
   */
  renew(subscriptionId: string, paid: boolean): Json {
    const subscription = this.subscriptions.get(subscriptionId)!;
    const item = (subscription.items as { data: Json[] }).data[0];
    const end = item.current_period_end as number;
    Object.assign(item, { current_period_start: end, current_period_end: end + 30 * 86_400 });
    subscription.status = paid ? 'active' : 'past_due';
    const invoice = this.invoice(subscription, 'subscription_cycle', paid);
    subscription.latest_invoice = invoice.id;
    return this.event(paid ? 'invoice.paid' : 'invoice.payment_failed', invoice);
  }

  /** Stripe gives up (or the customer cancels at the period's end): the subscription is canceled. Returns `customer.subscription.deleted`. */
  endSubscription(subscriptionId: string): Json {
    const subscription = this.subscriptions.get(subscriptionId)!;
    Object.assign(subscription, { status: 'canceled', canceled_at: now(), ended_at: now() });
    return this.subscriptionEvent('deleted', subscriptionId);
  }

  private invoice(subscription: Json, reason: string, paid: boolean): Json {
    const item = (subscription.items as { data: Json[] }).data[0];
    const price = item.price as Json;
    const id = newId('in');
    const invoice: Json = {
      id,
      object: 'invoice',
      customer: subscription.customer,
      status: paid ? 'paid' : 'open',
      billing_reason: reason,
      amount_due: price.unit_amount,
      amount_paid: paid ? price.unit_amount : 0,
      currency: price.currency,
      attempt_count: 1,
      number: `INV-${String(this.invoices.size + 1).padStart(4, '0')}`,
      hosted_invoice_url: `https://invoice.stripe.com/i/${id}`,
      invoice_pdf: `https://pay.stripe.com/invoice/${id}/pdf`,
      parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id, metadata: subscription.metadata } },
      period_start: item.current_period_start,
      period_end: item.current_period_end,
      created: now(),
    };
    this.invoices.set(id, invoice);
    return invoice;
  }

  /**
   * The operator refunds `amount` (default: what is left) of a PaymentIntent's charge: the charge's
   * `amount_refunded` (a running total) and `refunded` change. Returns the `charge.refunded` event.
   */
  refund(paymentIntentId: string, amount?: number): Json {
    const charge = this.chargeOf(paymentIntentId);
    const left = (charge.amount as number) - (charge.amount_refunded as number);
    const refunded = (charge.amount_refunded as number) + Math.min(amount ?? left, left);
    Object.assign(charge, { amount_refunded: refunded, refunded: refunded === charge.amount });
    return this.event('charge.refunded', charge);
  }

  /** The card holder disputes a PaymentIntent's charge. Returns the `charge.dispute.created` event. */
  dispute(paymentIntentId: string, reason = 'fraudulent'): Json {
    const charge = this.chargeOf(paymentIntentId);
    Object.assign(charge, { disputed: true });
    const dispute: Json = {
      id: newId('dp'),
      object: 'dispute',
      amount: charge.amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: paymentIntentId,
      reason,
      status: 'needs_response',
      created: now(),
      livemode: false,
    };
    return this.event('charge.dispute.created', dispute);
  }

  private chargeOf(paymentIntentId: string): Json {
    const intent = this.paymentIntents.get(paymentIntentId);
    const charge = intent && this.charges.get(intent.latest_charge as string);
    if (!charge) throw new Error(`no charge for ${paymentIntentId}`);
    return charge;
  }

  /** How a saved card answers off-session payments from now on: `card_declined`, `authentication_required`, or null (it pays). */
  readonly cardProblems = new Map<string, 'card_declined' | 'authentication_required'>();

  /** The card a paid pack checkout saved (its PaymentIntent's payment method). */
  cardOf(checkoutSessionId: string): string {
    const intent = this.paymentIntents.get(this.checkoutSessions.get(checkoutSessionId)!.payment_intent as string)!;
    return intent.payment_method as string;
  }

  /** A Stripe Event object around `object` (`created` defaults to now). */
  event(type: string, object: Json, options: { id?: string; created?: number } = {}): Json {
    return {
      id: options.id ?? newId('evt'),
      object: 'event',
      api_version: '2025-11-17.clover',
      created: options.created ?? now(),
      data: { object: JSON.parse(JSON.stringify(object)) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
  }

  /** Stripe's signature header for `payload`: `t=<timestamp>,v1=<HMAC-SHA256 of "<t>.<payload>">`. */
  sign(payload: string, options: { timestamp?: number; secret?: string } = {}): string {
    const t = options.timestamp ?? now();
    const v1 = createHmac('sha256', options.secret ?? this.webhookSecret).update(`${t}.${payload}`, 'utf8').digest('hex');
    return `t=${t},v1=${v1}`;
  }

  /** POSTs an event to the endpoint as Stripe does (JSON, signed); `signature` replaces the header, `payload` the body. */
  async deliver(endpoint: string, event: Json, options: { timestamp?: number; secret?: string; signature?: string | null; payload?: string } = {}): Promise<Delivery> {
    const payload = options.payload ?? JSON.stringify(event, null, 2);
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
    const signature = options.signature === undefined ? this.sign(payload, options) : options.signature;
    if (signature !== null) headers['stripe-signature'] = signature;
    const response = await fetch(endpoint, { method: 'POST', headers, body: payload });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  // --- Stripe's hosted pages, as a browser sees them ---

  /** Where the hosted Checkout page delivers the events of a payment made on it (the service's webhook). */
  hostedWebhook: string | null = null;

  /**
   * `GET /c/pay/<session>`: a page with a Pay button; `POST` pays (payCheckout), delivers the event
   * to `hostedWebhook` as Stripe would, and sends the browser to the session's success URL.
   * `GET /p/session/<id>`: the customer portal, with a link back to its return URL.
   */
  private async hosted(method: string, path: string, res: ServerResponse): Promise<boolean> {
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Stand-in Stripe</title></head><body>${body}</body></html>`);
    const pay = /^\/c\/pay\/([\w-]+)$/.exec(path);
    if (pay) {
      const session = this.checkoutSessions.get(pay[1]);
      if (!session) return false;
      if (method === 'GET') {
        html(`<h1>Pay ${((session.amount_total as number) / 100).toFixed(2)} ${String(session.currency).toUpperCase()}</h1><form method="post"><button type="submit">Pay</button></form>`);
        return true;
      }
      const event = this.payCheckout(pay[1]);
      if (this.hostedWebhook) await this.deliver(this.hostedWebhook, event);
      res.writeHead(303, { location: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', pay[1]) }).end();
      return true;
    }
    const portal = /^\/p\/session\/([\w-]+)$/.exec(path);
    if (portal && method === 'GET') {
      const session = this.portalSessions.get(portal[1]);
      if (!session) return false;
      html(`<h1>Customer portal</h1><p>Cards and invoices of ${String(session.customer)}</p><a href="${String(session.return_url)}">Return</a>`);
      return true;
    }
    return false;
  }

  // --- The API ---

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', `http://${this.host}`);
      const method = req.method ?? 'GET';
      if (!url.pathname.startsWith('/v1/')) {
        void this.hosted(method, url.pathname, res).then(
          (served) => served || res.writeHead(404).end(),
          (error: unknown) => res.writeHead(500).end(String(error)),
        );
        return;
      }
      const params = parseStripeForm(method === 'GET' || method === 'DELETE' ? url.search.slice(1) : Buffer.concat(chunks).toString('utf8'));
      this.requests.push({ method, path: url.pathname, params });
      const send = (status: number, body: Json) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') }).end(JSON.stringify(body));
      };
      try {
        if (req.headers.authorization !== `Bearer ${this.secretKey}`) {
          throw new StripeApiError(401, 'invalid_request_error', 'api_key_invalid', 'Invalid API Key provided.');
        }
        const key = req.headers['idempotency-key'];
        const idempotencyKey = typeof key === 'string' && method === 'POST' ? `${url.pathname} ${key}` : null;
        const replay = idempotencyKey ? this.idempotent.get(idempotencyKey) : undefined;
        if (replay) {
          send(replay.status, replay.body);
          return;
        }
        const body = this.route(method, url.pathname, params);
        if (idempotencyKey) this.idempotent.set(idempotencyKey, { status: 200, body });
        send(200, body);
      } catch (error) {
        if (error instanceof StripeApiError) {
          send(error.status, { error: { type: error.type, code: error.code, message: error.message, ...(error.param ? { param: error.param } : {}), ...error.extra } });
        } else {
          send(500, { error: { type: 'api_error', message: String(error) } });
        }
      }
    });
  }

  private route(method: string, path: string, params: Json): Json {
    const match = (pattern: RegExp) => pattern.exec(`${method} ${path}`);
    let m: RegExpExecArray | null;
    if (match(/^POST \/v1\/customers$/)) return this.createCustomer(params);
    if ((m = match(/^GET \/v1\/customers\/([\w-]+)$/))) return this.found(this.customers, 'customer', m[1]);
    if (match(/^POST \/v1\/checkout\/sessions$/)) return this.createCheckoutSession(params);
    if ((m = match(/^GET \/v1\/checkout\/sessions\/([\w-]+)$/))) return this.publicSession(this.found(this.checkoutSessions, 'checkout.session', m[1]));
    if (match(/^POST \/v1\/payment_intents$/)) return this.createPaymentIntent(params);
    if ((m = match(/^GET \/v1\/payment_intents\/([\w-]+)$/))) return this.expand(this.found(this.paymentIntents, 'payment_intent', m[1]), params);
    if ((m = match(/^GET \/v1\/charges\/([\w-]+)$/))) return this.found(this.charges, 'charge', m[1]);
    if (match(/^POST \/v1\/billing_portal\/sessions$/)) return this.createPortalSession(params);
    if (match(/^GET \/v1\/invoices$/)) {
      const invoices = [...this.invoices.values()].filter((i) => params.customer === undefined || i.customer === params.customer).reverse();
      const limit = Number(params.limit ?? 10);
      return { object: 'list', url: '/v1/invoices', has_more: invoices.length > limit, data: invoices.slice(0, limit) };
    }
    if ((m = match(/^GET \/v1\/prices\/([\w-]+)$/))) return this.found(this.prices, 'price', m[1]);
    if ((m = match(/^GET \/v1\/subscriptions\/([\w-]+)$/))) return this.found(this.subscriptions, 'subscription', m[1]);
    if ((m = match(/^POST \/v1\/subscriptions\/([\w-]+)$/))) return this.updateSubscription(this.found(this.subscriptions, 'subscription', m[1]), params);
    if ((m = match(/^DELETE \/v1\/subscriptions\/([\w-]+)$/))) {
      const subscription = this.found(this.subscriptions, 'subscription', m[1]);
      Object.assign(subscription, { status: 'canceled', canceled_at: now(), ended_at: now() });
      return subscription;
    }
    throw new StripeApiError(404, 'invalid_request_error', 'resource_missing', `Unrecognized request URL (${method}: ${path}).`);
  }

  private found(map: Map<string, Json>, what: string, id: string): Json {
    const object = map.get(id);
    if (!object) throw noSuch(what, id);
    return object;
  }

  /** `expand[]=latest_charge`: the id replaced by the object. */
  private expand(object: Json, params: Json): Json {
    const expand = Array.isArray(params.expand) ? (params.expand as string[]) : [];
    const copy = { ...object };
    if (expand.includes('latest_charge') && typeof copy.latest_charge === 'string') copy.latest_charge = this.charges.get(copy.latest_charge) ?? copy.latest_charge;
    return copy;
  }

  private createCustomer(params: Json): Json {
    const customer: Json = {
      id: newId('cus'),
      object: 'customer',
      email: params.email ?? null,
      metadata: params.metadata ?? {},
      invoice_settings: { default_payment_method: null },
      created: now(),
      livemode: false,
    };
    this.customers.set(customer.id as string, customer);
    return customer;
  }

  private createCheckoutSession(params: Json): Json {
    const mode = params.mode as string | undefined;
    if (!mode) throw missing('mode');
    if (!['payment', 'subscription', 'setup'].includes(mode)) throw new StripeApiError(400, 'invalid_request_error', 'parameter_invalid_string', `Invalid mode: must be one of payment, setup, or subscription`, 'mode');
    if (!params.success_url) throw missing('success_url');
    if (params.customer !== undefined && !this.customers.has(params.customer as string)) throw noSuch('customer', params.customer as string);
    const items = (params.line_items as Json[] | undefined) ?? [];
    if (mode !== 'setup' && items.length === 0) throw missing('line_items');
    let amount = 0;
    let currency: string | null = null;
    for (const [index, item] of items.entries()) {
      const priceData = item.price_data as Json | undefined;
      if (!priceData && !item.price) throw missing(`line_items[${index}][price]`);
      if (item.price) {
        const price = this.prices.get(item.price as string);
        if (!price) throw noSuch('price', item.price as string);
        if (mode === 'subscription' && price.type !== 'recurring') throw new StripeApiError(400, 'invalid_request_error', 'parameter_invalid', 'Subscription mode needs recurring prices.', `line_items[${index}][price]`);
        currency = price.currency as string;
        amount += (price.unit_amount as number) * Number(item.quantity ?? 1);
      }
      if (priceData) {
        if (!priceData.currency) throw missing(`line_items[${index}][price_data][currency]`);
        if (priceData.unit_amount === undefined) throw missing(`line_items[${index}][price_data][unit_amount]`);
        if (!priceData.product_data && !priceData.product) throw missing(`line_items[${index}][price_data][product_data]`);
        currency = priceData.currency as string;
        amount += Number(priceData.unit_amount) * Number(item.quantity ?? 1);
      }
    }
    const sessionId = newId('cs');
    const session: Json = {
      id: sessionId,
      object: 'checkout.session',
      mode,
      status: 'open',
      payment_status: 'unpaid',
      amount_subtotal: amount,
      amount_total: amount,
      currency,
      customer: params.customer ?? null,
      customer_email: params.customer_email ?? null,
      client_reference_id: params.client_reference_id ?? null,
      metadata: params.metadata ?? {},
      payment_intent: null,
      subscription: null,
      success_url: params.success_url,
      cancel_url: params.cancel_url ?? null,
      url: `http://${this.host}:${this.port}/c/pay/${sessionId}`,
      created: now(),
      expires_at: now() + 86_400,
      livemode: false,
      payment_intent_data: params.payment_intent_data ?? null,
      subscription_data: params.subscription_data ?? null,
      line_items_asked: items,
    };
    this.checkoutSessions.set(sessionId, session);
    return this.publicSession(session);
  }

  /** The session as the API shows it (what was asked of payment_intent_data, subscription_data and line_items is not a field of the object). */
  private publicSession(session: Json): Json {
    const { payment_intent_data: _asked, subscription_data: _subscription, line_items_asked: _items, ...shown } = session;
    return shown;
  }

  /**
   * A PaymentIntent; with `confirm`, charged at once on `payment_method` (off-session: no customer
   * present). A card set to fail answers Stripe's 402 card_error (`card_declined` with a decline
   * code, or `authentication_required`), with the PaymentIntent left as Stripe leaves it.
   */
  private createPaymentIntent(params: Json): Json {
    if (params.amount === undefined) throw missing('amount');
    if (!params.currency) throw missing('currency');
    if (params.customer !== undefined && !this.customers.has(params.customer as string)) throw noSuch('customer', params.customer as string);
    const id = newId('pi');
    const intent: Json = {
      id,
      object: 'payment_intent',
      amount: Number(params.amount),
      currency: params.currency,
      customer: params.customer ?? null,
      payment_method: params.payment_method ?? null,
      status: 'requires_payment_method',
      latest_charge: null,
      description: params.description ?? null,
      metadata: params.metadata ?? {},
      created: now(),
      livemode: false,
    };
    this.paymentIntents.set(id, intent);
    if (params.confirm !== 'true') return intent;
    if (!params.payment_method) throw missing('payment_method');
    const problem = this.cardProblems.get(params.payment_method as string);
    if (problem === 'authentication_required') {
      intent.status = 'requires_action';
      throw new StripeApiError(402, 'card_error', 'authentication_required', 'Your card was declined. This transaction requires authentication.', undefined, { decline_code: 'authentication_required', payment_intent: intent });
    }
    if (problem === 'card_declined') {
      throw new StripeApiError(402, 'card_error', 'card_declined', 'Your card was declined.', undefined, { decline_code: 'insufficient_funds', payment_intent: intent });
    }
    const chargeId = newId('ch');
    this.charges.set(chargeId, {
      id: chargeId,
      object: 'charge',
      amount: intent.amount,
      amount_refunded: 0,
      currency: intent.currency,
      customer: intent.customer,
      payment_intent: id,
      paid: true,
      refunded: false,
      status: 'succeeded',
      receipt_url: `https://pay.stripe.com/receipts/payment/${randomBytes(16).toString('hex')}`,
      metadata: intent.metadata,
      created: now(),
    });
    Object.assign(intent, { status: 'succeeded', latest_charge: chargeId });
    return this.expand(intent, params);
  }

  /** Every update asked, with its parameters (proration_behavior, items, cancel_at_period_end). */
  readonly subscriptionUpdates: Array<{ id: string; params: Json }> = [];

  private updateSubscription(subscription: Json, params: Json): Json {
    if (subscription.status === 'canceled') {
      throw new StripeApiError(400, 'invalid_request_error', 'resource_missing', 'A canceled subscription can only update its cancellation_details and metadata.');
    }
    this.subscriptionUpdates.push({ id: subscription.id as string, params });
    const item = (subscription.items as { data: Json[] }).data[0];
    const items = params.items as Json[] | undefined;
    if (items && items.length > 0) {
      if (items[0].id !== undefined && items[0].id !== item.id) throw noSuch('subscription_item', items[0].id as string);
      if (items[0].price !== undefined) {
        const price = this.prices.get(items[0].price as string);
        if (!price) throw noSuch('price', items[0].price as string);
        item.price = price;
      }
    }
    if (params.proration_behavior !== undefined && !['always_invoice', 'create_prorations', 'none'].includes(params.proration_behavior as string)) {
      throw new StripeApiError(400, 'invalid_request_error', 'parameter_invalid_string', 'Invalid proration_behavior', 'proration_behavior');
    }
    if (params.cancel_at_period_end !== undefined) subscription.cancel_at_period_end = params.cancel_at_period_end === 'true';
    if (params.metadata !== undefined) subscription.metadata = { ...(subscription.metadata as Json), ...(params.metadata as Json) };
    return subscription;
  }

  private createPortalSession(params: Json): Json {
    if (!params.customer) throw missing('customer');
    if (!this.customers.has(params.customer as string)) throw noSuch('customer', params.customer as string);
    const id = newId('bps');
    const session: Json = {
      id,
      object: 'billing_portal.session',
      customer: params.customer,
      return_url: params.return_url ?? null,
      url: `http://${this.host}:${this.port}/p/session/${id}`,
      created: now(),
      livemode: false,
    };
    this.portalSessions.set(id, session);
    return session;
  }
}
