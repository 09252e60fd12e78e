import { runCli } from '../support/cli';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';
import { StripeStandIn } from '../support/stripe-stand-in';

/**
 * A credit pack bought end to end with each service its own process: the gateway asks billing over
 * NATS for the Checkout Session, billing calls the Stripe stand-in through the `stripe` package, the
 * stand-in's signed event reaches the gateway's webhook and billing over `billing.stripe.event`.
 * While billing is down the webhook answers 503 (Stripe retries) and nothing is granted.
 */
describe('distributed: payments through Stripe', () => {
  let h: DistributedHarness;
  let stripe: StripeStandIn;

  beforeAll(async () => {
    stripe = await StripeStandIn.start();
    h = await startDistributed({ env: stripe.env() });
    expect(runCli(h.database.url, 'packs', 'set', '--id', 'starter', '--name', 'Starter', '--credits', '500', '--price', '500').code).toBe(0);
  });
  afterAll(async () => {
    await h?.close();
    await stripe?.close();
  });

  it('buys a pack: checkout over NATS, the signed event granted once; billing down is 503 and the retry grants', async () => {
    const owner = new DashboardClient(h.url);
    expect((await owner.signUp(testEmail('distpay'), TEST_PASSWORD)).status).toBe(201);
    const before = (await owner.request('GET', '/billing')).body;
    expect(before).toMatchObject({ provider: 'stripe', packs: [{ id: 'starter', credits: 500 }] });

    const session = await owner.request('POST', '/billing/checkout', { body: { pack_id: 'starter' } });
    expect(session.status).toBe(201);
    const event = stripe.payCheckout(session.body.checkout_session_id);
    const webhook = `${h.url}/billing/stripe/webhook`;

    await h.kill('billing', 'SIGTERM');
    const unavailable = await stripe.deliver(webhook, event);
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.error.code).toBe('service_unavailable');
    await h.restart('billing');

    expect(await stripe.deliver(webhook, event)).toEqual({ status: 200, body: { outcome: 'applied' } });
    expect(await stripe.deliver(webhook, event)).toEqual({ status: 200, body: { outcome: 'duplicate' } });
    expect((await owner.request('GET', '/billing')).body.available).toBe(before.available + 500);
    const purchases = (await owner.request('GET', '/billing/purchases')).body.data;
    expect(purchases).toEqual([expect.objectContaining({ checkout_session_id: session.body.checkout_session_id, credits: 500, receipt_url: expect.stringMatching(/^https:\/\/pay\.stripe\.com\/receipts\//) })]);
    const [row] = await h.query<{ n: string }>(`SELECT count(*) AS n FROM billing.stripe_events WHERE event_id = $1`, [event.id]);
    expect(Number(row.n)).toBe(1);
  });
});
