import { http } from '@gen/testing';
import { SubscriptionsService } from '@gen/billing';
import { runCli } from '../support/cli';
import { DashboardClient, testEmail } from '../support/dashboard-client';
import { testModel } from '../support/factories';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';
import { StripeStandIn } from '../support/stripe-stand-in';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HOUR = 3_600_000;

/**
 * Plans as Stripe subscriptions end to end (standalone): the operator maps plans to Stripe prices,
 * the owner subscribes through Checkout, upgrades (at once: the next request has the new limits) and
 * downgrades (at the period's end); a failed renewal keeps the plan through the grace period, then
 * the sweep moves the account to Free; events out of order or twice change nothing.
 */
describe('standalone: payments, plans as Stripe subscriptions', () => {
  let h: StandaloneHarness;
  let stripe: StripeStandIn;
  let smtp: SmtpSink;
  let webhook: string;
  let litePrice: string;
  let proPrice: string;
  let address = 0;

  beforeAll(async () => {
    stripe = await StripeStandIn.start();
    smtp = await startSmtpSink();
    h = await startStandaloneHarness(
      // The sweep is driven by the test (SubscriptionsService.sweep with a clock); its timer stays out of the way.
      { ...stripe.env(), SMTP_URL: smtp.url, BILLING_OUTBOX_POLL_MS: '100', SUBSCRIPTION_GRACE_HOURS: '24', PAYMENTS_SWEEP_MS: '3600000' },
      { models: [testModel({ id: 'tick-1', engine: 'instant', credits: 1 })] },
    );
    webhook = `${h.url}/billing/stripe/webhook`;
    litePrice = stripe.addPrice(900);
    proPrice = stripe.addPrice(4900);
    expect(runCli(h.database.url, 'plans', 'price', '--plan', 'lite', '--price', litePrice).code).toBe(0);
    expect(runCli(h.database.url, 'plans', 'price', '--plan', 'pro', '--price', proPrice).code).toBe(0);
  });
  afterAll(async () => {
    await h?.close();
    await stripe?.close();
    await smtp?.close();
  });

  async function freeAccount(label: string) {
    const created = await h.running.provisioning.createAccountWithSignIn(`${label} ${++address}`, testEmail(label), 'free', 1000);
    if (!created) throw new Error('account not created');
    const owner = new DashboardClient(h.url, { 'x-forwarded-for': `198.51.104.${++address % 250}` });
    expect((await owner.signIn(created.email, created.password)).status).toBe(200);
    const key = await owner.request('POST', '/keys', { body: { name: 'sub' } });
    expect(key.status).toBe(201);
    return { owner, email: created.email, accountId: created.accountId, apiKey: key.body.api_key as string };
  }
  const credits = async (key: string) => (await http(h.url, 'GET', '/api/v1/credits', { key })).body as { plan: string; limits: { requests_per_minute: number } };
  const submit = (key: string) => http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'tick-1', prompt: 'tick', type: 'TEXT_TO_IMAGE' } });
  const subscription = async (c: DashboardClient) => (await c.request('GET', '/billing')).body.subscription;
  async function subscribed(label: string, plan: 'lite' | 'pro') {
    const account = await freeAccount(label);
    const res = await account.owner.request('POST', '/billing/subscription', { body: { plan } });
    expect(res.status).toBe(200);
    expect(res.body.effective).toBe('checkout');
    const session = [...stripe.checkoutSessions.values()].find((s) => s.url === res.body.url)!;
    const paid = stripe.payCheckout(session.id as string);
    expect((await stripe.deliver(webhook, paid)).body).toEqual({ outcome: 'applied' });
    return { ...account, subscriptionId: session.subscription as string };
  }
  async function mailsTo(email: string, subject: string, count = 1, ms = 10_000) {
    const deadline = Date.now() + ms;
    const mine = async () => (await smtp.mailsTo(email, 0, 0)).filter((m) => m.subject.startsWith(subject));
    while ((await mine()).length < count && Date.now() < deadline) await sleep(50);
    return mine();
  }

  it('the operator maps plans to prices; a free account subscribes through Checkout, and the plan applies', async () => {
    expect(runCli(h.database.url, 'plans', 'prices', '--json').json).toEqual([
      { plan: 'lite', priceId: litePrice },
      { plan: 'pro', priceId: proPrice },
    ]);
    expect(runCli(h.database.url, 'plans', 'price', '--plan', 'free', '--price', litePrice).code).toBe(2);
    const { owner, email, accountId, apiKey, subscriptionId } = await subscribed('subscribe', 'lite');
    expect((await owner.request('GET', '/billing')).body.plans).toEqual(['lite', 'pro']);
    expect(await credits(apiKey)).toMatchObject({ plan: 'lite', limits: { requests_per_minute: 30, parallel_tasks: 2 } });
    expect(await subscription(owner)).toMatchObject({ subscription_id: subscriptionId, status: 'active', plan: 'lite', cancel_at_period_end: false, downgrade_at: null, grace_until: null });
    expect(await mailsTo(email, 'Plan changed: now lite')).toHaveLength(1);
    // The subscription's first invoice, listed from Stripe with its hosted page and PDF.
    const invoices = await owner.request('GET', '/billing/invoices');
    expect(invoices.status).toBe(200);
    expect(invoices.body.data).toEqual([
      expect.objectContaining({ status: 'paid', amount_paid: 900, currency: 'usd', hosted_invoice_url: expect.stringMatching(/^https:\/\/invoice\.stripe\.com\/i\/in_/), invoice_pdf: expect.stringMatching(/\/pdf$/) }),
    ]);
    expect((await owner.request('GET', '/billing/invoices?limit=101')).status).toBe(422);
    const shown = runCli(h.database.url, 'accounts', 'show', '--account', accountId);
    expect(shown.stdout).toContain(`Stripe subscription: ${subscriptionId} (lite, active)`);
    // The same subscription's events again (created, updated): nothing more changes.
    expect((await stripe.deliver(webhook, stripe.subscriptionEvent('created', subscriptionId))).body).toEqual({ outcome: 'ignored' });
    expect(await mailsTo(email, 'Plan changed', 2, 500)).toHaveLength(1);
  });

  it('an upgrade applies at once (prorated by Stripe): the next request has the new limits', async () => {
    const { owner, apiKey, subscriptionId } = await subscribed('upgrade', 'lite');
    const rpm = async () => Number((await http(h.url, 'GET', '/api/v1/models', { key: apiKey })).headers.get('ratelimit-limit'));
    expect(await rpm()).toBe(30);
    const res = await owner.request('POST', '/billing/subscription', { body: { plan: 'pro' } });
    expect(res.body).toEqual({ effective: 'now', url: null, plan: 'pro' });
    expect(stripe.subscriptionUpdates.at(-1)).toMatchObject({ id: subscriptionId, params: { proration_behavior: 'always_invoice', items: [{ price: proPrice }] } });
    // Pro: 60 a minute. The very next request is under the new limit.
    expect(await rpm()).toBe(60);
    expect((await submit(apiKey)).status).toBe(200);
    expect(await credits(apiKey)).toMatchObject({ plan: 'pro', limits: { requests_per_minute: 60, parallel_tasks: 3 } });
    // Stripe's own event about the change: applied already, nothing more.
    expect((await stripe.deliver(webhook, stripe.subscriptionEvent('updated', subscriptionId))).body).toEqual({ outcome: 'ignored' });
  });

  it('a downgrade waits for the end of the period paid for; an out-of-order older event cannot roll it back', async () => {
    const { owner, email, apiKey, subscriptionId } = await subscribed('downgrade', 'pro');
    const proSnapshot = stripe.subscriptionEvent('updated', subscriptionId);
    const res = await owner.request('POST', '/billing/subscription', { body: { plan: 'lite' } });
    expect(res.body).toEqual({ effective: 'period_end', url: null, plan: 'lite' });
    expect(stripe.subscriptionUpdates.at(-1)?.params).toMatchObject({ proration_behavior: 'none' });
    const view = await subscription(owner);
    expect(view).toMatchObject({ plan: 'lite', downgrade_at: view.current_period_end });
    expect((await credits(apiKey)).plan).toBe('pro');
    expect(await mailsTo(email, 'Plan change to lite scheduled')).toHaveLength(1);

    // The period ends, Stripe renews at the lower price: the account moves down.
    expect((await stripe.deliver(webhook, stripe.renew(subscriptionId, true))).body).toEqual({ outcome: 'applied' });
    expect(await credits(apiKey)).toMatchObject({ plan: 'lite', limits: { requests_per_minute: 30 } });
    expect((await subscription(owner)).downgrade_at).toBeNull();

    // An event from before the downgrade (showing pro), delivered late: billing reads the subscription as it is now.
    expect((await stripe.deliver(webhook, proSnapshot)).body).toEqual({ outcome: 'ignored' });
    expect((await credits(apiKey)).plan).toBe('lite');
  });

  it('a failed renewal keeps the plan through the grace period, mailing each step, then the account moves to Free', async () => {
    const { owner, email, accountId, apiKey, subscriptionId } = await subscribed('grace', 'pro');
    const failed = stripe.renew(subscriptionId, false);
    const before = Date.now();
    expect((await stripe.deliver(webhook, failed)).body).toEqual({ outcome: 'applied' });
    const view = await subscription(owner);
    expect(view.status).toBe('past_due');
    const graceUntil = Date.parse(view.grace_until);
    expect(graceUntil).toBeGreaterThanOrEqual(before + 24 * HOUR - 1_000);
    expect(graceUntil).toBeLessThanOrEqual(Date.now() + 24 * HOUR);
    expect((await credits(apiKey)).plan).toBe('pro');
    const [mail] = await mailsTo(email, 'Renewal failed: update your card');
    expect(mail.text).toContain(`If the plan is still unpaid on ${view.grace_until.replace('.000Z', 'Z')}, the account moves to the Free plan.`);
    // Stripe retries the card and fails again: the grace period does not start over (nothing changes, no second mail).
    expect((await stripe.deliver(webhook, stripe.event('invoice.payment_failed', (failed.data as any).object))).body).toEqual({ outcome: 'ignored' });
    expect(await mailsTo(email, 'Renewal failed', 2, 500)).toHaveLength(1);
    expect((await subscription(owner)).grace_until).toBe(view.grace_until);

    const sweeper = h.running.app.get(SubscriptionsService);
    expect(await sweeper.sweep(new Date(graceUntil - 60_000))).toBe(0);
    expect((await credits(apiKey)).plan).toBe('pro');
    expect(await sweeper.sweep(new Date(graceUntil + 1_000))).toBe(1);
    expect(await credits(apiKey)).toMatchObject({ plan: 'free', limits: { requests_per_minute: 10, parallel_tasks: 1 } });
    expect(stripe.subscriptions.get(subscriptionId)?.status).toBe('canceled');
    expect(await mailsTo(email, 'Renewal unpaid: now on the Free plan')).toHaveLength(1);
    const audit = await owner.request('GET', '/audit?action=account.renewal_failed');
    expect(audit.body.data).toHaveLength(1);
    // Stripe's deletion event afterwards changes nothing.
    expect((await stripe.deliver(webhook, stripe.subscriptionEvent('deleted', subscriptionId))).body).toEqual({ outcome: 'ignored' });
    expect(runCli(h.database.url, 'accounts', 'show', '--account', accountId).stdout).toContain('(pro, canceled)');
  });

  it('a renewal paid within the grace period keeps the plan; a subscription Stripe ends moves the account to Free', async () => {
    const { owner, email, apiKey, subscriptionId } = await subscribed('recover', 'lite');
    expect((await stripe.deliver(webhook, stripe.renew(subscriptionId, false))).body).toEqual({ outcome: 'applied' });
    expect((await subscription(owner)).grace_until).not.toBeNull();
    expect((await stripe.deliver(webhook, stripe.renew(subscriptionId, true))).body).toEqual({ outcome: 'applied' });
    expect(await subscription(owner)).toMatchObject({ status: 'active', grace_until: null });
    expect(await mailsTo(email, 'Renewal paid')).toHaveLength(1);
    // Past where the grace would have ended: nothing to sweep for this account.
    await h.running.app.get(SubscriptionsService).sweep(new Date(Date.now() + 48 * HOUR));
    expect((await credits(apiKey)).plan).toBe('lite');

    // Free chosen: canceled at the period's end at Stripe; when Stripe ends it, the account is on Free.
    const cancel = await owner.request('POST', '/billing/subscription', { body: { plan: 'free' } });
    expect(cancel.body).toEqual({ effective: 'period_end', url: null, plan: 'free' });
    expect(stripe.subscriptions.get(subscriptionId)?.cancel_at_period_end).toBe(true);
    expect((await credits(apiKey)).plan).toBe('lite');
    expect((await stripe.deliver(webhook, stripe.endSubscription(subscriptionId))).body).toEqual({ outcome: 'applied' });
    expect((await credits(apiKey)).plan).toBe('free');
    expect(await mailsTo(email, 'Subscription ended: now on the Free plan')).toHaveLength(1);
  });

  it('refuses what cannot be done with a clear 4xx', async () => {
    const { owner } = await freeAccount('refusals');
    // No Stripe customer yet: no invoices (and no call to Stripe).
    expect((await owner.request('GET', '/billing/invoices')).body).toEqual({ data: [] });
    const noSub = await owner.request('POST', '/billing/subscription', { body: { plan: 'free' } });
    expect(noSub.status).toBe(422);
    expect(noSub.body.error.message).toBe('The account has no subscription to end: it pays nothing for its plan.');
    const unsold = await owner.request('POST', '/billing/subscription', { body: { plan: 'enterprise' } });
    expect(unsold.status).toBe(404);
    expect(unsold.body.error.message).toBe('The enterprise plan is not sold through Stripe here; ask the operator.');
    expect((await owner.request('POST', '/billing/subscription', { body: { plan: 'gold' } })).status).toBe(422);
  });
});
