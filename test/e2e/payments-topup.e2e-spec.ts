import { TopUpsService } from '@gen/billing';
import type { AccountLowBalanceEvent } from '@gen/contracts';
import { http } from '@gen/testing';
import { runCli } from '../support/cli';
import { DashboardClient, testEmail } from '../support/dashboard-client';
import { testModel } from '../support/factories';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';
import { StripeStandIn } from '../support/stripe-stand-in';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MINUTE = 60_000;

/**
 * Automatic top-ups end to end (standalone): a pack bought through Checkout saves the card; the owner
 * turns top-ups on; generations spend the balance below the threshold and billing's low-balance
 * crossing buys the pack off-session at the stand-in, once per crossing. A declined card or one that
 * needs authentication mails the owners, shows on the Billing page and in the audit log, and is
 * retried after a back-off while the balance stays low.
 */
describe('standalone: payments, automatic top-ups', () => {
  let h: StandaloneHarness;
  let stripe: StripeStandIn;
  let smtp: SmtpSink;
  let webhook: string;
  let address = 0;

  beforeAll(async () => {
    stripe = await StripeStandIn.start();
    smtp = await startSmtpSink();
    h = await startStandaloneHarness(
      { ...stripe.env(), SMTP_URL: smtp.url, BILLING_OUTBOX_POLL_MS: '100', PAYMENTS_SWEEP_MS: '3600000', TOP_UP_RETRY_MINUTES: '60' },
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

  async function owner(label: string) {
    const created = await h.running.provisioning.createAccountWithSignIn(`${label} ${++address}`, testEmail(label), 'pro', 0);
    if (!created) throw new Error('account not created');
    const c = new DashboardClient(h.url, { 'x-forwarded-for': `198.51.105.${++address % 250}` });
    expect((await c.signIn(created.email, created.password)).status).toBe(200);
    const key = await c.request('POST', '/keys', { body: { name: 'spender' } });
    expect(key.status).toBe(201);
    return { c, email: created.email, accountId: created.accountId, apiKey: key.body.api_key as string };
  }
  /** An owner who bought the starter pack (500 credits): the card is saved. */
  async function buyer(label: string) {
    const account = await owner(label);
    const session = await account.c.request('POST', '/billing/checkout', { body: { pack_id: 'starter' } });
    expect((await stripe.deliver(webhook, stripe.payCheckout(session.body.checkout_session_id))).body).toEqual({ outcome: 'applied' });
    return { ...account, card: stripe.cardOf(session.body.checkout_session_id) };
  }
  const submit = (key: string) => http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'coin-100', prompt: 'a coin', type: 'TEXT_TO_IMAGE' } });
  const available = async (c: DashboardClient) => (await c.request('GET', '/billing')).body.available as number;
  const topUpIntents = (accountId: string) => [...stripe.paymentIntents.values()].filter((pi) => (pi.metadata as Record<string, string>).account_id === accountId && (pi.metadata as Record<string, string>).top_up_attempt);
  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
    const deadline = Date.now() + ms;
    let value = await read();
    while (!done(value) && Date.now() < deadline) {
      await sleep(50);
      value = await read();
    }
    return value;
  }
  const crossings = async (accountId: string) =>
    (await h.running.databases.billing.query(`SELECT payload FROM outbox WHERE pattern = 'account.low_balance' AND payload->>'accountId' = $1 ORDER BY created_at`, [accountId])).map(
      (r: { payload: AccountLowBalanceEvent }) => r.payload,
    );

  it('needs a saved card, a pack on sale and a threshold', async () => {
    const { c } = await owner('nocard');
    const refused = await c.request('PUT', '/billing/top-up', { body: { pack_id: 'starter', threshold: 300 } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toBe('No card is saved for this account: buy a credit pack once with the card to use, then turn on automatic top-ups.');
    expect((await c.request('GET', '/billing/top-up')).body).toEqual({ enabled: false, pack_id: null, threshold: null, card_saved: false, failing: false, last_error: null, next_attempt_at: null });
    const { c: buyerClient } = await buyer('packs');
    expect((await buyerClient.request('PUT', '/billing/top-up', { body: { pack_id: 'nope', threshold: 300 } })).status).toBe(404);
    expect((await buyerClient.request('PUT', '/billing/top-up', { body: { pack_id: 'starter', threshold: 0 } })).status).toBe(422);
    expect((await buyerClient.request('PUT', '/billing/top-up', { body: { pack_id: 'starter' } })).status).toBe(422);
  });

  it('buys the pack once per crossing, with the saved card, off-session; a redelivered crossing pays nothing more', async () => {
    const { c, accountId, apiKey, card } = await buyer('crossing');
    const set = await c.request('PUT', '/billing/top-up', { body: { pack_id: 'starter', threshold: 300 } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ enabled: true, pack_id: 'starter', threshold: 300, card_saved: true, failing: false, last_error: null, next_attempt_at: null });
    // 500 → 200 by three generations at once: one crossing.
    const spent = await Promise.all([submit(apiKey), submit(apiKey), submit(apiKey)]);
    expect(spent.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await until(() => available(c), (n) => n === 700)).toBe(700);
    await sleep(500);
    const intents = topUpIntents(accountId);
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({ status: 'succeeded', amount: 500, currency: 'usd', payment_method: card });
    expect(stripe.requests.find((r) => r.path === '/v1/payment_intents' && r.method === 'POST')?.params).toMatchObject({ off_session: 'true', confirm: 'true' });
    const ledger = await c.request('GET', '/usage/ledger?limit=20');
    const topUp = ledger.body.data.filter((e: { note: string | null }) => e.note?.startsWith('Automatic top-up'));
    expect(topUp).toHaveLength(1);
    expect(topUp[0]).toMatchObject({ kind: 'grant', amount: 500 });
    expect(topUp[0].note).toMatch(/^Automatic top-up: credit pack "starter" \(Stripe payment pi_test_\w+\); receipt https:\/\/pay\.stripe\.com\/receipts\//);

    // The crossing's event handled again (an at-least-once redelivery): its attempt exists, nothing is paid.
    const [crossing] = await crossings(accountId);
    await h.running.app.get(TopUpsService).onLowBalance(crossing);
    expect(topUpIntents(accountId)).toHaveLength(1);
    expect(await available(c)).toBe(700);
  });

  it('a declined card mails the owners, shows on the page and in the audit log, and is retried after the back-off', async () => {
    const { c, email, accountId, apiKey, card } = await buyer('declined');
    expect((await c.request('PUT', '/billing/top-up', { body: { pack_id: 'starter', threshold: 300 } })).status).toBe(200);
    stripe.cardProblems.set(card, 'card_declined');
    for (let i = 0; i < 3; i += 1) expect((await submit(apiKey)).status).toBe(200);
    const failing = await until(async () => (await c.request('GET', '/billing')).body.top_up, (t) => t.failing === true);
    expect(failing.last_error).toMatch(/^The automatic top-up of the credit pack Starter \(500 credits, 5\.00 USD\) failed: the card was declined \(insufficient funds\)\. It is tried again after /);
    const mails = await until(async () => (await smtp.mailsTo(email, 0, 0)).filter((m) => m.subject.startsWith('Automatic top-up failed')), (m) => m.length > 0);
    expect(mails[0].text).toContain(failing.last_error);
    const audit = await until(async () => (await c.request('GET', '/audit?action=account.top_up_failed')).body.data, (d: unknown[]) => d.length > 0);
    expect(audit[0]).toMatchObject({ actor: 'stripe', details: { reason: 'the card was declined (insufficient funds)' } });
    expect(await available(c)).toBe(200);

    const topUps = h.running.app.get(TopUpsService);
    const next = Date.parse(failing.next_attempt_at);
    expect(next).toBeGreaterThan(Date.now() + 59 * MINUTE);
    expect(await topUps.retryDue(new Date(next - MINUTE))).toBe(0);
    stripe.cardProblems.delete(card);
    expect(await topUps.retryDue(new Date(next + 1_000))).toBe(1);
    expect(await available(c)).toBe(700);
    expect((await c.request('GET', '/billing')).body.top_up).toMatchObject({ failing: false, last_error: null, next_attempt_at: null });
    // No longer below the threshold: nothing to retry.
    expect(await topUps.retryDue(new Date(next + 120 * MINUTE))).toBe(0);
    expect(topUpIntents(accountId).map((pi) => pi.status)).toEqual(['requires_payment_method', 'succeeded']);
  });

  it('a card that needs authentication fails the same way, saying so; failures back off, doubling', async () => {
    const { c, apiKey, card } = await buyer('auth');
    expect((await c.request('PUT', '/billing/top-up', { body: { pack_id: 'starter', threshold: 300 } })).status).toBe(200);
    stripe.cardProblems.set(card, 'authentication_required');
    for (let i = 0; i < 3; i += 1) expect((await submit(apiKey)).status).toBe(200);
    const first = await until(async () => (await c.request('GET', '/billing')).body.top_up, (t) => t.failing === true);
    expect(first.last_error).toContain('failed: the card needs the cardholder to confirm the payment (authentication required)');
    const topUps = h.running.app.get(TopUpsService);
    const firstNext = Date.parse(first.next_attempt_at);
    expect(await topUps.retryDue(new Date(firstNext + 1_000))).toBe(1);
    const second = (await c.request('GET', '/billing')).body.top_up;
    // The second failure waits twice as long (from when it happened).
    expect(Date.parse(second.next_attempt_at) - Date.now()).toBeGreaterThan(119 * MINUTE);
    // Turning it off (or changing the pack) is the owner's answer: the back-off ends.
    const off = await c.request('PUT', '/billing/top-up', { body: { pack_id: null } });
    expect(off.body).toMatchObject({ enabled: false, failing: false });
  });
});
