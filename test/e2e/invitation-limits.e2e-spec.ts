import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';
import { Teams } from '../support/team';

/** Invitations cannot be used as a mail relay (docs/guide/dashboard.md, "Invitations"). */
describe('standalone: invitation limits', () => {
  let h: StandaloneHarness;
  let smtp: SmtpSink;
  let teams: Teams;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Gen <no-reply@gen.example>',
      SIGNUP_MODE: 'verified',
      INVITATIONS_PER_ACCOUNT_PER_HOUR: '3',
      INVITATIONS_PER_ADDRESS_PER_DAY: '2',
    });
    teams = new Teams(h, smtp, '198.18.11');
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  const refusals = async (reason: string) => {
    const text = await (await fetch(`${h.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('gen_dashboard_invitations_refused_total{') && l.includes(`reason="${reason}"`));
    if (!line) throw new Error(`no gen_dashboard_invitations_refused_total for ${reason}`);
    return Number(line.split(' ').pop());
  };
  const invite = (c: DashboardClient, email: string) => c.request('POST', '/members/invitations', { body: { email, role: 'viewer' } });

  it('limits mails per account per hour, re-sends included, and counts the refusal', async () => {
    const t = await teams.team();
    const before = await refusals('account_hourly_limit');
    const email = testEmail('relay');
    expect((await invite(t.owner, email)).status).toBe(201);
    expect((await invite(t.owner, testEmail('relay'))).status).toBe(201);
    expect((await invite(t.owner, testEmail('relay'))).status).toBe(201);
    const fourth = await invite(t.owner, testEmail('relay'));
    expect({ status: fourth.status, code: fourth.body.error.code }).toEqual({ status: 429, code: 'rate_limit_exceeded' });
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refusals('account_hourly_limit')).toBe(before + 1);
  });

  it('limits mails per address per day across accounts', async () => {
    const target = testEmail('target');
    const [a, b] = [await teams.team('a'), await teams.team('b')];
    expect((await invite(a.owner, target)).status).toBe(201);
    expect((await invite(a.owner, target)).status).toBe(201);
    const third = await invite(b.owner, target);
    expect(third.status).toBe(429);
    expect(await smtp.mailsTo(target, 2)).toHaveLength(2);
    expect(await refusals('address_daily_limit')).toBeGreaterThanOrEqual(1);
  });

  it('refuses an inviter whose own address is not verified (verified mode)', async () => {
    const c = teams.client();
    expect((await c.signUp(testEmail('unverified'), TEST_PASSWORD)).status).toBe(201);
    const res = await invite(c, testEmail('victim'));
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: 'email_not_verified' });
    expect(await refusals('unverified_inviter')).toBe(1);
  });

  it('shows typed names as plain text that cannot be a link', async () => {
    const created = await h.running.provisioning.createAccountWithSignIn('Visit https://evil.example/win now', testEmail('named'), 'pro', 0);
    if (!created) throw new Error('account not created');
    const owner = teams.client();
    expect((await owner.signIn(created.email, created.password)).status).toBe(200);
    const target = testEmail('reader');
    expect((await invite(owner, target)).status).toBe(201);
    const [mail] = await smtp.mailsTo(target, 1);
    expect(mail.subject).toBe('Join Visit https[:]//evil[.]example/win now on the Generation Service');
    expect(mail.text).toContain('"Visit https[:]//evil[.]example/win now"');
    expect(mail.text).not.toContain('evil.example');
    expect(mail.links).toHaveLength(1);
  });
});
