import { http } from '@gen/testing';
import { runCli } from '../support/cli';
import { DashboardClient, testEmail } from '../support/dashboard-client';
import { testModel } from '../support/factories';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';
import { StripeStandIn } from '../support/stripe-stand-in';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Refunds and disputes end to end (standalone): a pack bought through the stand-in, generations that
 * spend its credits, then Stripe's `charge.refunded` and `charge.dispute.created` delivered signed to
 * the gateway. Refunded credits are taken back, never below zero; what was spent restricts the account
 * (its submits get 402 saying why and what to do); the owners are mailed and the audit log says so.
 */
describe('standalone: payments, refunds and disputes', () => {
  // Several operator CLI runs (a Node process each) and Stripe round trips a test: 30 s ran out on a loaded CI machine.
  jest.setTimeout(120_000);
  let h: StandaloneHarness;
  let stripe: StripeStandIn;
  let smtp: SmtpSink;
  let webhook: string;
  let address = 0;

  beforeAll(async () => {
    stripe = await StripeStandIn.start();
    smtp = await startSmtpSink();
    h = await startStandaloneHarness(
      { ...stripe.env(), SMTP_URL: smtp.url, BILLING_OUTBOX_POLL_MS: '100' },
      { models: [testModel({ id: 'coin-100', engine: 'instant', credits: 100 })] },
    );
    webhook = `${h.url}/billing/stripe/webhook`;
    expect(runCli(h.database.url, 'packs', 'set', '--id', 'starter', '--name', 'Starter', '--credits', '500', '--price', '500').code).toBe(0);
  });
  afterAll(async () => {
    await h?.close();
    await stripe?.close();
    await smtp?.close();
  });

  /** An account with no credits of its own, its owner signed in, an API key; then a pack bought and paid. */
  async function buyer(label: string) {
    const created = await h.running.provisioning.createAccountWithSignIn(`${label} ${++address}`, testEmail(label), 'pro', 0);
    if (!created) throw new Error('account not created');
    const owner = new DashboardClient(h.url, { 'x-forwarded-for': `198.51.103.${++address % 250}` });
    expect((await owner.signIn(created.email, created.password)).status).toBe(200);
    const key = await owner.request('POST', '/keys', { body: { name: 'spender' } });
    expect(key.status).toBe(201);
    const session = await owner.request('POST', '/billing/checkout', { body: { pack_id: 'starter' } });
    expect(session.status).toBe(201);
    expect((await stripe.deliver(webhook, stripe.payCheckout(session.body.checkout_session_id))).body).toEqual({ outcome: 'applied' });
    const intent = stripe.checkoutSessions.get(session.body.checkout_session_id)!.payment_intent as string;
    return { owner, email: created.email, accountId: created.accountId, apiKey: key.body.api_key as string, intent };
  }
  const submit = (key: string) => http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'coin-100', prompt: 'a coin', type: 'TEXT_TO_IMAGE' } });
  const overview = async (c: DashboardClient) => (await c.request('GET', '/billing')).body;
  async function mailsTo(email: string, subject: string, count = 1, ms = 10_000) {
    const deadline = Date.now() + ms;
    const mine = async () => (await smtp.mailsTo(email, 0, 0)).filter((m) => m.subject.startsWith(subject));
    while ((await mine()).length < count && Date.now() < deadline) await sleep(50);
    return mine();
  }
  async function auditActions(c: DashboardClient, action: string, count = 1, ms = 10_000) {
    const deadline = Date.now() + ms;
    const entries = async () => (await c.request('GET', `/audit?action=${action}`)).body.data as Array<{ action: string; actor: string; details: Record<string, unknown> }>;
    while ((await entries()).length < count && Date.now() < deadline) await sleep(50);
    return entries();
  }

  it('a refund before spending takes the credits back, mails the owner and is in the audit log; nothing is restricted', async () => {
    const { owner, email, apiKey, intent } = await buyer('refund');
    expect((await overview(owner)).available).toBe(500);
    const refunded = await stripe.deliver(webhook, stripe.refund(intent));
    expect(refunded).toEqual({ status: 200, body: { outcome: 'applied' } });
    expect(await overview(owner)).toMatchObject({ available: 0, restriction: null });
    const ledger = await owner.request('GET', '/usage/ledger?limit=1');
    expect(ledger.body.data[0]).toMatchObject({ kind: 'adjustment', amount: -500, balance_after: 0 });
    expect(ledger.body.data[0].note).toMatch(/^Refund: 500 credits of credit pack "starter" taken back \(Stripe charge ch_/);
    expect((await owner.request('GET', '/billing/purchases')).body.data[0].refunded_credits).toBe(500);
    const [mail] = await mailsTo(email, 'A payment was refunded');
    expect(mail.text).toContain('A payment was refunded: 5.00 USD of the 5.00 USD paid for the credit pack "starter".');
    const [entry] = await auditActions(owner, 'account.payment_refunded');
    expect(entry).toMatchObject({ actor: 'stripe', details: { credits_taken: 500, credits_spent: 0 } });
    // Without credits it is the ordinary 402 (not a restriction).
    const refused = await submit(apiKey);
    expect(refused.status).toBe(402);
    expect(refused.body.error.message).toMatch(/^Insufficient credits/);
  });

  it('a refund after the credits were spent takes what is left, restricts the account, and its submits get 402 until the operator lifts it', async () => {
    const { owner, email, accountId, apiKey, intent } = await buyer('spent');
    for (let i = 0; i < 4; i += 1) expect((await submit(apiKey)).status).toBe(200);
    expect((await overview(owner)).available).toBe(100);

    // A partial refund first (2.00 of 5.00 USD: 200 credits), then the rest; then the first event again, late.
    const partial = stripe.refund(intent, 200);
    expect((await stripe.deliver(webhook, partial)).body).toEqual({ outcome: 'applied' });
    const view = await overview(owner);
    expect(view.available).toBe(0);
    expect(view.restriction).toMatchObject({ reason: 'refund' });
    expect(view.restriction.message).toBe(
      'This account is restricted: a payment was refunded (2.00 USD of the 5.00 USD paid for the credit pack "starter") after 100 of its credits had been spent, so they could not be taken back. ' +
        'New generations are refused until this is settled: contact the operator of this service (the Billing page says how to pay) to have the restriction lifted.',
    );
    const rest = stripe.refund(intent);
    expect((await stripe.deliver(webhook, rest)).body).toEqual({ outcome: 'applied' });
    expect((await owner.request('GET', '/billing/purchases')).body.data[0].refunded_credits).toBe(500);
    // The partial refund's event once more (another id, an older running total): nothing more to take.
    const late = stripe.event('charge.refunded', (partial.data as any).object);
    expect((await stripe.deliver(webhook, late)).body).toEqual({ outcome: 'ignored' });
    expect((await overview(owner)).available).toBe(0);
    const sums = await h.running.databases.billing.query(`SELECT sum(available_delta) AS total FROM ledger WHERE account_id = $1`, [accountId]);
    expect(Number(sums[0].total)).toBe(0);

    const refused = await submit(apiKey);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: 'insufficient_credits', status: 402, message: view.restriction.message });
    // Credits alone do not lift it.
    expect(runCli(h.database.url, 'credits', 'grant', '--account', accountId, '--amount', '1000').code).toBe(0);
    expect((await submit(apiKey)).status).toBe(402);

    // Both refund events found credits spent: a mail each, in either order.
    const mails = await mailsTo(email, 'Account restricted after a refund', 2);
    expect(mails).toHaveLength(2);
    expect(mails.filter((m) => m.text.includes(view.restriction.message))).toHaveLength(1);
    // One entry per refund event that found credits spent (the partial refund's, then the rest's).
    const restricted = await auditActions(owner, 'account.restricted', 2);
    expect(restricted.map((e) => [e.details.credits_taken, e.details.credits_spent]).sort()).toEqual([
      [0, 300],
      [100, 100],
    ]);
    expect(runCli(h.database.url, 'accounts', 'show', '--account', accountId).stdout).toContain(`Restricted: ${view.restriction.message as string}`);

    expect(runCli(h.database.url, 'accounts', 'unrestrict', '--account', accountId, '--note', 'paid by bank transfer').code).toBe(0);
    expect((await overview(owner)).restriction).toBeNull();
    expect((await submit(apiKey)).status).toBe(200);
    expect((await auditActions(owner, 'account.restriction_lifted'))[0].details).toEqual({ note: 'paid by bank transfer' });
    const again = runCli(h.database.url, 'accounts', 'unrestrict', '--account', accountId);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('is not restricted');
  });

  it('a dispute restricts the account, mails the owner and is in the audit log; a repeat changes nothing', async () => {
    const { owner, email, apiKey, intent } = await buyer('dispute');
    expect((await submit(apiKey)).status).toBe(200);
    const event = stripe.dispute(intent);
    expect(await stripe.deliver(webhook, event)).toEqual({ status: 200, body: { outcome: 'applied' } });
    expect(await stripe.deliver(webhook, event)).toEqual({ status: 200, body: { outcome: 'duplicate' } });
    const view = await overview(owner);
    expect(view.available).toBe(400);
    expect(view.restriction.reason).toBe('dispute');
    expect(view.restriction.message).toMatch(/^This account is restricted: the card holder disputed a payment of 5\.00 USD \(Stripe dispute dp_test_\w+\)\. New generations are refused while the dispute is open/);
    const refused = await submit(apiKey);
    expect(refused.status).toBe(402);
    expect(refused.body.error.message).toBe(view.restriction.message);
    const mails = await mailsTo(email, 'A payment was disputed: account restricted');
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toContain('(reason: fraudulent)');
    const entries = await auditActions(owner, 'account.payment_disputed');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: 'stripe', details: { reason: 'fraudulent' } });
  });

  it('refunds and disputes of payments that are not pack purchases are stored and ignored', async () => {
    const other = stripe.event('charge.refunded', { id: 'ch_elsewhere', object: 'charge', amount: 100, amount_refunded: 100, payment_intent: 'pi_elsewhere' });
    expect((await stripe.deliver(webhook, other)).body).toEqual({ outcome: 'ignored' });
    expect((await stripe.deliver(webhook, other)).body).toEqual({ outcome: 'duplicate' });
    const dispute = stripe.event('charge.dispute.created', { id: 'dp_elsewhere', object: 'dispute', amount: 100, charge: 'ch_elsewhere', payment_intent: null });
    expect((await stripe.deliver(webhook, dispute)).body).toEqual({ outcome: 'ignored' });
  });
});
