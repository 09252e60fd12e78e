import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BillingService } from '@gen/billing';
import { GatewayJanitorService } from '@gen/gateway';
import { http } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { testModel } from '../support/factories';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const THRESHOLD_MESSAGE = 'threshold: a whole number of credits from 0 to 2147483647 (0 or null turns alerts off).';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records every request with its raw body. */
class Receiver {
  readonly received: Array<{ headers: IncomingHttpHeaders; raw: Buffer }> = [];
  private server!: Server;
  url = '';
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/account-events`;
  }
  lowBalance() {
    return this.received.filter((r) => r.headers['x-service-event'] === 'account.low_balance');
  }
  async waitFor(count: number, ms = 15_000) {
    const deadline = Date.now() + ms;
    while (this.lowBalance().length < count && Date.now() < deadline) await sleep(20);
    return this.lowBalance();
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * Low-balance alerts end to end (standalone): the threshold set in the dashboard, holds made by real
 * submits, the mail received by a real SMTP server in this process, and the signed
 * `account.low_balance` event received by a local receiver (its signature verified).
 */
describe('standalone: low-balance alerts', () => {
  let h: StandaloneHarness;
  let smtp: SmtpSink;
  const receiver = new Receiver();
  let address = 0;
  const client = () => new DashboardClient(h.url, { 'x-forwarded-for': `198.51.100.${++address}` });

  beforeAll(async () => {
    smtp = await startSmtpSink();
    await receiver.start();
    h = await startStandaloneHarness(
      { SMTP_URL: smtp.url, MAIL_FROM: 'Gen <no-reply@gen.example>', SIGNUP_CREDITS: '20', BILLING_OUTBOX_POLL_MS: '100' },
      { models: [testModel({ id: 'coin-3', engine: 'instant', credits: 3 })] },
    );
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
    await smtp?.close();
  });

  async function signedUp() {
    const email = testEmail('lowbal');
    const c = client();
    expect((await c.signUp(email, TEST_PASSWORD)).status).toBe(201);
    const created = await c.request('POST', '/keys', { body: { name: 'alerts', webhook_url: receiver.url } });
    expect(created.status).toBe(201);
    const accountId = (await h.running.databases.auth.query(`SELECT account_id FROM users WHERE email_key = $1`, [email]))[0].account_id as string;
    return { c, email, accountId, apiKey: created.body.api_key as string, secret: created.body.webhook_secret as string, keyId: created.body.key.id as string };
  }
  /** The low-balance mails to `email` (sign-up sends a verification mail too), once `count` have come or after `ms`. */
  async function alertMails(email: string, count: number, ms = 10_000) {
    const deadline = Date.now() + ms;
    const mine = async () => (await smtp.mailsTo(email, 0, 0)).filter((m) => m.subject.startsWith('Low balance: '));
    while ((await mine()).length < count && Date.now() < deadline) await sleep(50);
    return mine();
  }
  const submit = (key: string) => http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'coin-3', prompt: 'a coin', type: 'TEXT_TO_IMAGE' } });

  it('mails the owner once per crossing and sends one signed account.low_balance event; a top-up re-arms it', async () => {
    const { c, email, accountId, apiKey, secret, keyId } = await signedUp();
    const set = await c.request('PUT', '/account/low-balance', { body: { threshold: 15 } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ threshold: 15, available: 20, below: false });

    expect((await submit(apiKey)).status).toBe(200); // 17 left
    expect((await submit(apiKey)).status).toBe(200); // 14: below 15, the crossing
    expect((await submit(apiKey)).status).toBe(200); // 11: the same crossing
    const [mail] = await alertMails(email, 1);
    expect(mail).toMatchObject({ from: 'no-reply@gen.example', subject: expect.stringContaining('Low balance: 14 credits left') as unknown });
    expect(mail.text).toContain('below your alert threshold of 15 credits');
    expect(mail.links).toEqual([`${h.url}/dashboard/settings/account`]);

    const [event] = await receiver.waitFor(1);
    expect(verify(event.raw, event.headers, secret)).toMatchObject({ event: 'account.low_balance' });
    const body = JSON.parse(event.raw.toString('utf8'));
    expect(Object.keys(body)).toEqual(['event', 'id', 'account_id', 'threshold', 'available', 'created_at']);
    expect(body).toMatchObject({ event: 'account.low_balance', account_id: accountId, threshold: 15, available: 14 });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.headers['x-service-delivery-id']).toMatch(/^wh_/);

    // The dashboard shows the setting, that this crossing was alerted, and the delivery.
    const shown = await c.request('GET', '/account/low-balance');
    expect(shown.body).toMatchObject({ threshold: 15, available: 11, below: true });
    expect(shown.body.deliveries).toEqual([expect.objectContaining({ event: 'account.low_balance', url: receiver.url, status: 'succeeded', test: false })]);

    // A top-up back above the threshold re-arms it: the next fall below alerts again.
    await h.running.app.get(BillingService).adjust(accountId, 10, 'top-up'); // 21
    expect((await submit(apiKey)).status).toBe(200); // 18
    expect((await submit(apiKey)).status).toBe(200); // 15: not below
    expect((await submit(apiKey)).status).toBe(200); // 12: crossing 2
    expect(await alertMails(email, 2)).toHaveLength(2);
    const events = await receiver.waitFor(2);
    expect(events.map((e) => JSON.parse(e.raw.toString('utf8')).available)).toEqual([14, 12]);
    await sleep(700); // nothing more comes
    expect(receiver.lowBalance()).toHaveLength(2);
    expect(await alertMails(email, 3, 100)).toHaveLength(2);

    // The janitor forgets the mails sent once they are a week old, and only those.
    const auth = h.running.databases.auth;
    const mailedRows = async () => Number((await auth.query(`SELECT count(*)::int AS n FROM low_balance_mails WHERE account_id = $1`, [accountId]))[0].n);
    expect(await mailedRows()).toBe(2);
    await auth.query(`UPDATE low_balance_mails SET sent_at = now() - interval '8 days' WHERE account_id = $1 AND sent_at = (SELECT min(sent_at) FROM low_balance_mails WHERE account_id = $1)`, [accountId]);
    expect((await h.running.app.get(GatewayJanitorService).sweep()).lowBalanceMails).toBeGreaterThanOrEqual(1);
    expect(await mailedRows()).toBe(1);

    // The change is in the audit log, as the user's.
    const audit = (await c.request('GET', '/audit?action=account.low_balance_threshold_set')).body.data;
    expect(audit).toEqual([expect.objectContaining({ actor: email, target: accountId, details: { threshold: 15 } })]);
    expect(keyId).toBeDefined();
  });

  it('refuses a negative, fractional, non-numeric, too large or missing threshold with 422 and changes nothing; 0 and null turn alerts off', async () => {
    const { c } = await signedUp();
    expect((await c.request('PUT', '/account/low-balance', { body: { threshold: 10 } })).status).toBe(200);
    for (const body of [{ threshold: -1 }, { threshold: 1.5 }, { threshold: '10' }, { threshold: 2_147_483_648 }, {}]) {
      const res = await c.request('PUT', '/account/low-balance', { body });
      expect({ status: res.status, code: res.body.error?.code, message: res.body.error?.message }).toEqual({
        status: 422,
        code: 'validation_error',
        message: THRESHOLD_MESSAGE,
      });
    }
    expect((await c.request('GET', '/account/low-balance')).body).toMatchObject({ threshold: 10 });
    expect((await c.request('PUT', '/account/low-balance', { body: { threshold: 0 } })).body).toMatchObject({ threshold: null });
    expect((await c.request('PUT', '/account/low-balance', { body: { threshold: null } })).body).toMatchObject({ threshold: null });
  });

  it('needs a signed-in session', async () => {
    const anonymous = client();
    await anonymous.session();
    expect((await anonymous.request('GET', '/account/low-balance')).status).toBe(401);
  });
});
