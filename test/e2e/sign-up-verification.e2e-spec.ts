import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const INVALID = 'token: This verification link is not valid: it was used already, has expired, or was replaced by a newer one. Ask for a new one.';
const tokenOf = (link: string) => new URL(link).searchParams.get('token') as string;

/** One deployment per SIGNUP_MODE, mails over SMTP to a real SMTP server in this process; links followed as a user would. */
function deployment(mode: 'open' | 'verified' | 'invite', extra: Record<string, string> = {}) {
  const context: { h: StandaloneHarness; smtp: SmtpSink; address: number } = { h: undefined as never, smtp: undefined as never, address: 0 };
  beforeAll(async () => {
    context.smtp = await startSmtpSink();
    context.h = await startStandaloneHarness({ SMTP_URL: context.smtp.url, SIGNUP_MODE: mode, SIGNUP_CREDITS: '10', ...extra });
  });
  afterAll(async () => {
    await context.h?.close();
    await context.smtp?.close();
  });
  const client = () => new DashboardClient(context.h.url, { 'x-forwarded-for': `198.18.${mode.length}.${++context.address}` });
  async function signUp() {
    const email = testEmail(`verify-${mode}`);
    const c = client();
    const res = await c.signUp(email, TEST_PASSWORD);
    return { email, c, res };
  }
  async function verify(token: string) {
    const c = client();
    await c.session();
    return c.request('POST', '/email-verification/verify', { body: { token } });
  }
  return { context, client, signUp, verify };
}

describe('SIGNUP_MODE=verified: keys wait for the verification link', () => {
  const { context, signUp, verify } = deployment('verified');

  it('mails a single-use link; until it is followed the user cannot create keys; the audit log records it', async () => {
    const { email, c, res } = await signUp();
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email, email_verified: false, two_factor: { enabled: false, required: false } });
    const refused = await c.request('POST', '/keys', { body: { name: 'first' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'email_not_verified', message: expect.stringContaining('Verify your email address') });
    expect((await c.request('GET', '/keys')).body.data).toEqual([]);

    const [mail] = await context.smtp.mailsTo(email);
    expect(mail.subject).toBe('Verify your email address');
    expect(mail.links).toHaveLength(1);
    const link = new URL(mail.links[0]);
    expect(`${link.origin}${link.pathname}`).toBe(`${context.h.url}/dashboard/verify-email`);
    expect(tokenOf(mail.links[0])).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Any browser may follow the link (the token is the proof).
    const done = await verify(tokenOf(mail.links[0]));
    expect({ status: done.status, body: done.body }).toEqual({ status: 200, body: { email_verified: true, email } });
    expect((await c.session()).body.user.email_verified).toBe(true);
    expect((await c.request('POST', '/keys', { body: { name: 'first' } })).status).toBe(201);

    const reused = await verify(tokenOf(mail.links[0]));
    expect({ status: reused.status, message: reused.body.error.message }).toEqual({ status: 422, message: INVALID });
    const audit = (await c.request('GET', '/audit?action=user.email_verified')).body.data;
    expect(audit).toEqual([expect.objectContaining({ actor: email, target: email })]);
  });

  it('refuses forged, overlong and expired tokens and verifies nothing', async () => {
    expect((await verify('forged-token-that-was-never-issued-by-us-000')).body.error.message).toBe(INVALID);
    expect((await verify('x'.repeat(201))).status).toBe(422);
    expect((await verify(42 as unknown as string)).status).toBe(422);
    const { email, c } = await signUp();
    const [mail] = await context.smtp.mailsTo(email);
    await context.h.running.databases.auth.query(
      `UPDATE email_verifications SET expires_at = now() - interval '1 second' WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [email],
    );
    const expired = await verify(tokenOf(mail.links[0]));
    expect({ status: expired.status, message: expired.body.error.message }).toEqual({ status: 422, message: INVALID });
    expect((await c.session()).body.user.email_verified).toBe(false);
  });

  it('resends at most once per window (429 with Retry-After); the new link replaces the old one', async () => {
    const { email, c } = await signUp();
    const [first] = await context.smtp.mailsTo(email);
    const early = await c.request('POST', '/email-verification/resend');
    expect(early.status).toBe(429);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(early.body.error.message).toMatch(/^A verification mail was sent a moment ago\. Wait \d+ seconds before asking for another\.$/);
    // Past the window (moved back in time rather than waited for).
    await context.h.running.databases.auth.query(
      `UPDATE email_verifications SET sent_at = now() - interval '1 hour' WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [email],
    );
    const again = await c.request('POST', '/email-verification/resend');
    expect({ status: again.status, body: again.body }).toEqual({ status: 202, body: { message: `A new verification link is on its way to ${email}.` } });
    const mails = await context.smtp.mailsTo(email, 2);
    expect(mails).toHaveLength(2);
    expect((await verify(tokenOf(first.links[0]))).body.error.message).toBe(INVALID);
    expect((await verify(tokenOf(mails[1].links[0]))).status).toBe(200);
    const verified = await c.request('POST', '/email-verification/resend');
    expect({ status: verified.status, message: verified.body.error.message }).toEqual({ status: 409, message: 'Your email address is verified already.' });
  });

  it('an account an operator makes counts as verified', async () => {
    const made = await context.h.running.provisioning.createAccountWithSignIn('Ops made', testEmail('ops'), 'free', 0);
    const c = new DashboardClient(context.h.url, { 'x-forwarded-for': '198.18.99.1' });
    expect((await c.signIn(made!.email, made!.password)).body.user.email_verified).toBe(true);
    expect((await c.request('POST', '/keys', { body: { name: 'k' } })).status).toBe(201);
  });

  it('tells the sign-up page the mode and that keys wait for verification', async () => {
    const c = new DashboardClient(context.h.url);
    expect((await c.session()).body.sign_up).toEqual({ enabled: true, mode: 'verified', credits: 10, verification_required: true });
  });
});

describe('SIGNUP_MODE=open (standalone default): the mail is sent, keys do not wait for it', () => {
  const { context, signUp, verify } = deployment('open');

  it('creates keys unverified, and the link still verifies', async () => {
    const { email, c } = await signUp();
    expect((await c.request('POST', '/keys', { body: { name: 'now' } })).status).toBe(201);
    const [mail] = await context.smtp.mailsTo(email);
    expect((await verify(tokenOf(mail.links[0]))).status).toBe(200);
    expect((await c.session()).body.user.email_verified).toBe(true);
  });
});

describe('SIGNUP_MODE=invite: no public sign-up', () => {
  const { context, signUp } = deployment('invite');

  it('refuses sign-up with 403 signup_closed, creates nothing and mails nothing', async () => {
    const { email, res } = await signUp();
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'signup_closed', message: 'Sign-up is by invitation only on this deployment: ask a member of your team to invite you.' });
    const [{ n }] = await context.h.running.databases.auth.query(`SELECT count(*)::int AS n FROM users WHERE email = $1`, [email]);
    expect(n).toBe(0);
    expect(await context.smtp.mailsTo(email, 1, 300)).toEqual([]);
    const c = new DashboardClient(context.h.url);
    expect((await c.session()).body.sign_up).toMatchObject({ enabled: false, mode: 'invite' });
  });
});
