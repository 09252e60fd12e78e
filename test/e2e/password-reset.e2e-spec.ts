import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PasswordHasher } from '@gen/gateway';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const NEW_PASSWORD = 'a brand new passphrase';
const ANSWER = 'If an account uses this address, a link to choose a new password is on its way. It works once, for a limited time.';
const SUBJECT = 'Choose a new password';
const INVALID = 'token: This reset link is not valid: it was used already, has expired, or was replaced by a newer one. Ask for a new one.';

/** Password reset by mail (standalone, mails over SMTP to a real SMTP server in this process): the link is followed as a user would. */
describe('standalone: password reset by mail', () => {
  let h: StandaloneHarness;
  let smtp: SmtpSink;
  let address = 0;
  const client = () => new DashboardClient(h.url, { 'x-forwarded-for': `198.18.0.${++address}` });

  beforeAll(async () => {
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({ SMTP_URL: smtp.url, MAIL_FROM: 'Gen <no-reply@gen.example>' });
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  async function user() {
    const email = testEmail('reset');
    const c = client();
    expect((await c.signUp(email, TEST_PASSWORD)).status).toBe(201);
    return { email, c };
  }
  async function requestReset(email: string) {
    const c = client();
    await c.session();
    return c.request('POST', '/password-reset', { body: { email } });
  }
  const tokenOf = (link: string) => new URL(link).searchParams.get('token') as string;
  async function complete(token: string, password = NEW_PASSWORD) {
    const c = client();
    await c.session();
    return c.request('POST', '/password-reset/complete', { body: { token, new_password: password } });
  }

  it('mails a link; following it sets the new password once, ends every session, and is recorded in the audit log', async () => {
    const { email, c } = await user();
    const other = client();
    expect((await other.signIn(email, TEST_PASSWORD)).status).toBe(200);

    const answer = await requestReset(email.toUpperCase());
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ message: ANSWER });
    // Sign-up sent a verification mail to the address too: the reset mail is the one with its subject.
    const [mail] = await smtp.mailsTo(email, 1, 10_000, SUBJECT);
    expect(mail).toMatchObject({ from: 'no-reply@gen.example', subject: SUBJECT });
    expect(mail.links).toHaveLength(1);
    const link = new URL(mail.links[0]);
    expect(`${link.origin}${link.pathname}`).toBe(`${h.url}/dashboard/reset-password`);
    const token = tokenOf(mail.links[0]);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const short = await complete(token, 'short');
    expect(short.status).toBe(422);
    expect(short.body.error.message).toBe('new_password: Use at least 10 characters.');
    const done = await complete(token);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ ended_sessions: 2 });
    // Both sessions ended at once; the old password no longer works, the new one does.
    expect((await c.request('GET', '/keys')).status).toBe(401);
    expect((await other.request('GET', '/keys')).status).toBe(401);
    expect((await client().signIn(email, TEST_PASSWORD)).status).toBe(401);
    const again = client();
    expect((await again.signIn(email, NEW_PASSWORD)).status).toBe(200);
    // Single use.
    const reused = await complete(token, 'yet another passphrase');
    expect(reused.status).toBe(422);
    expect(reused.body.error.message).toBe(INVALID);
    const audit = (await again.request('GET', '/audit?action=user.password_reset')).body.data;
    expect(audit).toEqual([expect.objectContaining({ actor: email, details: { ended_sessions: 2 } })]);
  });

  it('answers an unknown address exactly as a known one, and mails nothing', async () => {
    const unknown = `nobody-${Date.now()}@example.com`;
    const res = await requestReset(unknown);
    expect({ status: res.status, body: res.body }).toEqual({ status: 202, body: { message: ANSWER } });
    await new Promise((r) => setTimeout(r, 500));
    expect(await smtp.mailsTo(unknown, 1, 200)).toEqual([]);
  });

  it('refuses forged, overlong and expired tokens, and changes nothing', async () => {
    expect((await complete('forged-token-that-was-never-issued-by-us-000')).body.error.message).toBe(INVALID);
    expect((await complete('x'.repeat(201))).status).toBe(422);
    const { email } = await user();
    await requestReset(email);
    const [mail] = await smtp.mailsTo(email, 1, 10_000, SUBJECT);
    await h.running.databases.auth.query(
      `UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [email],
    );
    const expired = await complete(tokenOf(mail.links[0]));
    expect({ status: expired.status, message: expired.body.error.message }).toEqual({ status: 422, message: INVALID });
    expect((await client().signIn(email, TEST_PASSWORD)).status).toBe(200);
  });

  it('checks the token before it hashes the new password: a wrong token costs no hash', async () => {
    const hash = jest.spyOn(PasswordHasher.prototype, 'hash');
    try {
      const wrong = await complete('forged-token-that-was-never-issued-by-us-001');
      expect({ status: wrong.status, message: wrong.body.error.message }).toEqual({ status: 422, message: INVALID });
      expect(hash).not.toHaveBeenCalled();
    } finally {
      hash.mockRestore();
    }
  });

  it("applies sign-up's password rules: not the email address", async () => {
    const { email } = await user();
    await requestReset(email);
    const [mail] = await smtp.mailsTo(email, 1, 10_000, SUBJECT);
    const same = await complete(tokenOf(mail.links[0]), `  ${email.toUpperCase()} `);
    expect({ status: same.status, message: same.body.error.message }).toEqual({ status: 422, message: 'new_password: Do not use your email address as your password.' });
    // Refused before it was used: the link still works.
    expect((await complete(tokenOf(mail.links[0]))).status).toBe(200);
  });

  it('throttles completions per client address: guessing tokens ends in 429 with Retry-After', async () => {
    const c = client();
    await c.session();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 15 && !statuses.includes(429); i++) {
      const res = await c.request('POST', '/password-reset/complete', { body: { token: `guess-${i}-${'0'.repeat(36)}`, new_password: NEW_PASSWORD } });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(422));
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('1,000 requests for one address send one mail in the window, each answered the same', async () => {
    const { email } = await user();
    const c = client();
    await c.session();
    // 100 at once, ten times over (a thousand sockets at once is more than the test client opens).
    const answers = [];
    for (let round = 0; round < 10; round++) {
      answers.push(...(await Promise.all(Array.from({ length: 100 }, () => c.request('POST', '/password-reset', { body: { email } })))));
    }
    expect(answers).toHaveLength(1000);
    expect(new Set(answers.map((a) => `${a.status} ${JSON.stringify(a.body)}`))).toEqual(new Set([`202 ${JSON.stringify({ message: ANSWER })}`]));
    await smtp.mailsTo(email, 1, 10_000, SUBJECT);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await smtp.mailsTo(email, 1, 10_000, SUBJECT)).toHaveLength(1);
  });
});

/** Standalone without SMTP_URL writes each mail to DATA_DIR/mail as an .eml file (and its link to the log). */
describe('standalone without SMTP: mails as .eml files', () => {
  let h: StandaloneHarness;
  const dataDir = mkdtempSync(join(tmpdir(), 'gen-mail-'));

  beforeAll(async () => {
    h = await startStandaloneHarness({ DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes the reset mail with its link to DATA_DIR/mail', async () => {
    const email = testEmail('eml');
    const c = new DashboardClient(h.url, { 'x-forwarded-for': '198.18.1.1' });
    expect((await c.signUp(email, TEST_PASSWORD)).status).toBe(201);
    expect((await c.request('POST', '/password-reset', { body: { email } })).status).toBe(202);
    const dir = join(dataDir, 'mail');
    // Sign-up's verification mail is there too (standalone's `open` mode sends it): two files, one a reset.
    let mails: string[] = [];
    for (let i = 0; i < 100 && mails.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        mails = readdirSync(dir).filter((f) => f.endsWith('.eml')).map((f) => readFileSync(join(dir, f), 'utf8'));
      } catch {
        mails = [];
      }
    }
    expect(mails).toHaveLength(2);
    expect(mails.filter((m) => m.includes('Subject: Verify your email address'))).toHaveLength(1);
    const resets = mails.filter((m) => m.includes(`Subject: ${SUBJECT}`));
    expect(resets).toHaveLength(1);
    const eml = resets[0];
    expect(eml).toContain(`To: ${email}`);
    expect(eml.replace(/=\r\n/g, '')).toMatch(/\/dashboard\/reset-password\?token=3D[A-Za-z0-9_-]{43}|\/dashboard\/reset-password\?token=[A-Za-z0-9_-]{43}/);
  });
});
