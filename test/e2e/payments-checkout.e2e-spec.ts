import { runCli } from '../support/cli';
import { DashboardClient } from '../support/dashboard-client';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';
import { StripeStandIn } from '../support/stripe-stand-in';
import { Teams } from '../support/team';


/**
 * Credit packs bought through Stripe Checkout, end to end in standalone mode: the dashboard's Billing
 * routes create the session at the stand-in (through the real `stripe` package), the stand-in plays
 * the customer paying and delivers Stripe's signed event to the gateway's webhook, and billing grants
 * the credits exactly once.
 */
describe('standalone: payments, credit packs through Stripe Checkout', () => {
  // Several operator CLI runs (a Node process each) and Stripe round trips a test: 30 s ran out on a loaded CI machine.
  jest.setTimeout(120_000);
  let h: StandaloneHarness;
  let stripe: StripeStandIn;
  let smtp: SmtpSink;
  let teams: Teams;
  let webhook: string;

  beforeAll(async () => {
    stripe = await StripeStandIn.start();
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({ ...stripe.env(), SMTP_URL: smtp.url });
    teams = new Teams(h, smtp, '198.51.101');
    webhook = `${h.url}/billing/stripe/webhook`;
    // The operator defines the packs with the CLI (the built one, as in production).
    expect(runCli(h.database.url, 'packs', 'set', '--id', 'starter', '--name', 'Starter', '--credits', '500', '--price', '500').code).toBe(0);
    expect(runCli(h.database.url, 'packs', 'set', '--id', 'bulk', '--name', 'Bulk', '--credits', '5000', '--price', '4000', '--currency', 'usd').code).toBe(0);
    expect(runCli(h.database.url, 'packs', 'set', '--id', 'old', '--name', 'Old', '--credits', '10', '--price', '100', '--retire').code).toBe(0);
  });
  afterAll(async () => {
    await h?.close();
    await stripe?.close();
    await smtp?.close();
  });

  const available = async (c: DashboardClient) => (await c.request('GET', '/billing')).body.available as number;
  const eventCount = async () => Number((await h.running.databases.billing.query(`SELECT count(*) AS n FROM stripe_events`))[0].n);

  async function checkout(c: DashboardClient, packId = 'starter') {
    const res = await c.request('POST', '/billing/checkout', { body: { pack_id: packId } });
    expect(res.status).toBe(201);
    return res.body as { checkout_session_id: string; url: string };
  }

  it('shows the balance and the packs; buying one grants its credits once, as a purchase in the ledger with its receipt', async () => {
    const { owner, accountId } = await teams.team('buyer');
    const page = await owner.request('GET', '/billing');
    expect(page.status).toBe(200);
    expect(page.body).toEqual({
      provider: 'stripe',
      available: 1000,
      packs: [
        { id: 'starter', name: 'Starter', credits: 500, unit_amount: 500, currency: 'usd' },
        { id: 'bulk', name: 'Bulk', credits: 5000, unit_amount: 4000, currency: 'usd' },
      ],
      stripe_customer_id: null,
      subscription: null,
      plans: [],
      top_up: { enabled: false, pack_id: null, threshold: null, card_saved: false, failing: false, last_error: null, next_attempt_at: null },
      restriction: null,
    });

    const session = await checkout(owner);
    expect(session.url).toBe(`http://${stripe.host}:${stripe.port}/c/pay/${session.checkout_session_id}`);
    const asked = stripe.checkoutSessions.get(session.checkout_session_id)!;
    expect(asked).toMatchObject({ mode: 'payment', amount_total: 500, currency: 'usd', client_reference_id: accountId, metadata: { account_id: accountId, pack_id: 'starter', credits: '500' } });
    expect(asked.success_url).toBe(`${h.url}/dashboard/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`);
    expect((asked.payment_intent_data as any).setup_future_usage).toBe('off_session');
    const customerId = asked.customer as string;
    expect(stripe.customers.get(customerId)?.metadata).toEqual({ account_id: accountId });
    expect((await owner.request('GET', '/billing')).body.stripe_customer_id).toBe(customerId);
    // Not paid yet: nothing granted.
    expect(await available(owner)).toBe(1000);

    const event = stripe.payCheckout(session.checkout_session_id);
    const delivered = await stripe.deliver(webhook, event);
    expect(delivered).toEqual({ status: 200, body: { outcome: 'applied' } });
    expect(await available(owner)).toBe(1500);

    const ledger = await owner.request('GET', '/usage/ledger?limit=5');
    const intent = stripe.checkoutSessions.get(session.checkout_session_id)!.payment_intent as string;
    const charge = stripe.charges.get(stripe.paymentIntents.get(intent)!.latest_charge as string)!;
    expect(ledger.body.data[0]).toMatchObject({ kind: 'grant', amount: 500, balance_after: 1500 });
    expect(ledger.body.data[0].note).toBe(`Purchase: credit pack "starter" (Stripe checkout ${session.checkout_session_id}, payment ${intent}); receipt ${charge.receipt_url as string}`);

    const purchases = await owner.request('GET', '/billing/purchases');
    expect(purchases.status).toBe(200);
    expect(purchases.body.data).toEqual([
      expect.objectContaining({ checkout_session_id: session.checkout_session_id, pack_id: 'starter', credits: 500, amount: 500, currency: 'usd', payment_intent_id: intent, receipt_url: charge.receipt_url, refunded_credits: 0 }),
    ]);

    // A second checkout reuses the customer.
    const again = await checkout(owner, 'bulk');
    expect(stripe.checkoutSessions.get(again.checkout_session_id)!.customer).toBe(customerId);
    expect(stripe.customers.size).toBeGreaterThanOrEqual(1);
    expect([...stripe.customers.values()].filter((c) => (c.metadata as any).account_id === accountId)).toHaveLength(1);
  });

  it('a replayed event, another event of the same session and an unhandled type change nothing', async () => {
    const { owner } = await teams.team('replay');
    const session = await checkout(owner);
    const event = stripe.payCheckout(session.checkout_session_id);
    expect((await stripe.deliver(webhook, event)).body).toEqual({ outcome: 'applied' });
    // Stripe retries with a fresh signature: stored by id, a duplicate.
    expect(await stripe.deliver(webhook, event)).toEqual({ status: 200, body: { outcome: 'duplicate' } });
    // A different event about the same session (async payment succeeded): the session granted already.
    const other = stripe.event('checkout.session.async_payment_succeeded', (event.data as any).object);
    expect(await stripe.deliver(webhook, other)).toEqual({ status: 200, body: { outcome: 'duplicate' } });
    const unknown = stripe.event('customer.updated', { id: 'cus_x', object: 'customer' });
    expect(await stripe.deliver(webhook, unknown)).toEqual({ status: 200, body: { outcome: 'ignored' } });
    expect(await stripe.deliver(webhook, unknown)).toEqual({ status: 200, body: { outcome: 'duplicate' } });
    expect(await available(owner)).toBe(1500);
  });

  it('100 concurrent deliveries of one event grant once', async () => {
    const { owner, accountId } = await teams.team('storm');
    const session = await checkout(owner, 'bulk');
    const event = stripe.payCheckout(session.checkout_session_id);
    const results = await Promise.all(Array.from({ length: 100 }, () => stripe.deliver(webhook, event)));
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(200));
    const outcomes = results.map((r) => r.body.outcome as string);
    expect(outcomes.filter((o) => o === 'applied')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(99);
    expect(await available(owner)).toBe(6000);
    const rows = await h.running.databases.billing.query(`SELECT count(*) AS n FROM ledger WHERE account_id = $1 AND note LIKE 'Purchase:%'`, [accountId]);
    expect(Number(rows[0].n)).toBe(1);
    const sums = await h.running.databases.billing.query(`SELECT sum(available_delta) AS total FROM ledger WHERE account_id = $1`, [accountId]);
    expect(Number(sums[0].total)).toBe(6000);
  });

  it('forged, stale, unsigned and malformed deliveries are 400 in the envelope and change nothing', async () => {
    const { owner } = await teams.team('forged');
    const session = await checkout(owner);
    const event = stripe.payCheckout(session.checkout_session_id);
    const before = await eventCount();
    const refused = [
      await stripe.deliver(webhook, event, { secret: 'whsec_someone_else' }),
      // Signed 10 minutes ago: past the 300 s tolerance (a captured delivery replayed).
      await stripe.deliver(webhook, event, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
      await stripe.deliver(webhook, event, { signature: null }),
      await stripe.deliver(webhook, event, { signature: 't=1,v1=00' }),
      // The signature of another body.
      await stripe.deliver(webhook, event, { signature: stripe.sign(JSON.stringify({ ...event, id: 'evt_other' })) }),
      // Signed, but not an event.
      await stripe.deliver(webhook, {}, { payload: JSON.stringify({ id: 'evt_x', type: 'checkout.session.completed' }) }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'bad_request' });
      expect(typeof res.body.error.message).toBe('string');
    }
    const notJson = await fetch(webhook, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign('{nope') }, body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(await eventCount()).toBe(before);
    expect(await available(owner)).toBe(1000);
    // The genuine delivery still works afterwards.
    expect((await stripe.deliver(webhook, event)).body).toEqual({ outcome: 'applied' });
  });

  it("takes an event larger than the API's body limit (an invoice with many lines), up to the provider callbacks' limit", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => ({ id: `il_${i}`, object: 'line_item', description: `Line ${i} `.padEnd(200, '.'), amount: 100 }));
    const big = stripe.event('invoice.finalized', { id: 'in_big', object: 'invoice', lines: { object: 'list', data: lines } });
    expect(JSON.stringify(big).length).toBeGreaterThan(65_536);
    expect(await stripe.deliver(webhook, big)).toEqual({ status: 200, body: { outcome: 'ignored' } });
    const huge = stripe.event('invoice.finalized', { id: 'in_huge', object: 'invoice', padding: 'x'.repeat(600 * 1024) });
    expect((await stripe.deliver(webhook, huge)).status).toBe(413);
  });

  it('owners buy and open the portal; admins see the page; developers and viewers do not', async () => {
    const { owner } = await teams.team('roles');
    const admin = (await teams.join(owner, 'admin')).c;
    const developer = (await teams.join(owner, 'developer')).c;
    expect((await admin.request('GET', '/billing')).status).toBe(200);
    expect((await admin.request('GET', '/billing/purchases')).status).toBe(200);
    const adminBuys = await admin.request('POST', '/billing/checkout', { body: { pack_id: 'starter' } });
    expect(adminBuys.status).toBe(403);
    expect(adminBuys.body.error.code).toBe('forbidden');
    expect((await admin.request('POST', '/billing/portal')).status).toBe(403);
    expect((await developer.request('GET', '/billing')).status).toBe(403);
    expect((await developer.request('GET', '/billing/purchases')).status).toBe(403);

    const portal = await owner.request('POST', '/billing/portal');
    expect(portal.status).toBe(201);
    expect(portal.body.url).toMatch(new RegExp(`^http://${stripe.host}:${stripe.port}/p/session/bps_`));
    const asked = [...stripe.portalSessions.values()].pop()!;
    expect(asked.return_url).toBe(`${h.url}/dashboard/billing`);
  });

  it('the CLI lists packs (retired ones too), refuses a bad pack, and `accounts show` names the Stripe customer', async () => {
    const listed = runCli(h.database.url, 'packs', 'list', '--json');
    expect(listed.code).toBe(0);
    expect(listed.json).toEqual([
      { id: 'old', name: 'Old', credits: 10, unitAmount: 100, currency: 'usd', active: false },
      { id: 'starter', name: 'Starter', credits: 500, unitAmount: 500, currency: 'usd', active: true },
      { id: 'bulk', name: 'Bulk', credits: 5000, unitAmount: 4000, currency: 'usd', active: true },
    ]);
    const bad = runCli(h.database.url, 'packs', 'set', '--id', 'x', '--name', 'X', '--credits', '0', '--price', '100');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('pack credits: a whole number from 1 to 2000000000.');
    expect(runCli(h.database.url, 'packs', 'set', '--id', 'x', '--name', 'X', '--credits', '5', '--price', '100', '--currency', 'USD').stderr).toContain('pack currency');

    const { owner, accountId } = await teams.team('show');
    expect(runCli(h.database.url, 'accounts', 'show', '--account', accountId, '--json').json).toMatchObject({ id: accountId, plan: 'pro', available: 1000, stripe: { customer_id: null } });
    await checkout(owner);
    const shown = runCli(h.database.url, 'accounts', 'show', '--account', accountId);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Stripe customer: ${(await owner.request('GET', '/billing')).body.stripe_customer_id as string}`);
    // A retired pack is not on sale.
    expect((await owner.request('POST', '/billing/checkout', { body: { pack_id: 'old' } })).status).toBe(404);
  });

  it('refuses an unknown pack, a malformed pack id and a bad page size with a clear 4xx', async () => {
    const { owner } = await teams.team('badpack');
    const unknown = await owner.request('POST', '/billing/checkout', { body: { pack_id: 'nope' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('No credit pack "nope" is on sale.');
    const malformed = await owner.request('POST', '/billing/checkout', { body: { pack_id: 'Not A Pack!' } });
    expect(malformed.status).toBe(422);
    expect((await owner.request('POST', '/billing/checkout', { body: {} })).status).toBe(422);
    expect((await owner.request('GET', '/billing/purchases?limit=0')).status).toBe(422);
  });
});

describe('standalone: payments off (PAYMENTS_PROVIDER=none, the default)', () => {
  let h: StandaloneHarness;
  let smtp: SmtpSink;
  let stripe: StripeStandIn;

  beforeAll(async () => {
    stripe = await StripeStandIn.start();
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({ SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
    await stripe?.close();
  });

  it('the page says payments are off, checkout is 404 and the webhook route is 404', async () => {
    const { owner } = await new Teams(h, smtp, '198.51.102').team('off');
    const page = await owner.request('GET', '/billing');
    expect(page.body).toMatchObject({ provider: 'none', available: 1000, stripe_customer_id: null, top_up: null });
    const buy = await owner.request('POST', '/billing/checkout', { body: { pack_id: 'starter' } });
    expect(buy.status).toBe(404);
    const delivered = await stripe.deliver(`${h.url}/billing/stripe/webhook`, stripe.event('checkout.session.completed', { id: 'cs_x', object: 'checkout.session' }));
    expect(delivered.status).toBe(404);
    expect(delivered.body.error.code).toBe('not_found');
  });
});
