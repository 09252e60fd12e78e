import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** Codes as an authenticator app makes them from the otpauth URI (otpauth itself, not the service's code). */
function app(uri: string) {
  const parsed = new URL(uri);
  const totp = new TOTP({ secret: Secret.fromBase32(parsed.searchParams.get('secret') as string), digits: 6, period: 30, algorithm: 'SHA1' });
  return { at: (ms: number) => totp.generate({ timestamp: ms }), now: () => totp.generate() };
}

const WRONG = 'code: This code is not right, or was used already. Enter the current code from your app, or a recovery code.';
const EXPIRED = 'Your sign-in took too long or had too many wrong codes. Enter your email and password again.';

describe('two-factor sign-in (TOTP) with recovery codes', () => {
  let h: StandaloneHarness;
  let address = 0;
  const client = () => new DashboardClient(h.url, { 'x-forwarded-for': `198.19.0.${++address}` });

  beforeAll(async () => {
    h = await startStandaloneHarness({ SIGN_IN_LOCK_AFTER: '6' });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A signed-up user with TOTP on: their client, their "app" and their recovery codes. */
  async function enrolled() {
    const email = testEmail('2fa');
    const c = client();
    expect((await c.signUp(email, TEST_PASSWORD)).status).toBe(201);
    const begun = await c.request('POST', '/two-factor/enrollment');
    expect(begun.status).toBe(201);
    expect(begun.body.otpauth_uri).toContain(`secret=${begun.body.secret}`);
    const phone = app(begun.body.otpauth_uri);
    const confirmed = await c.request('POST', '/two-factor/enrollment/confirm', { body: { code: phone.now(), password: TEST_PASSWORD } });
    expect(confirmed.status).toBe(200);
    return { email, c, phone, recovery: confirmed.body.recovery_codes as string[] };
  }

  /** Answers a challenge, waiting out the throttle's short delays (a 429 with Retry-After of a few seconds); a lock's 429 is returned. */
  async function answer(c: DashboardClient, token: string, code: string) {
    let res = await c.signInWithCode(token, code);
    while (res.status === 429 && Number(res.headers.get('retry-after')) <= 10) {
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after')) * 1000));
      res = await c.signInWithCode(token, code);
    }
    return res;
  }

  /** The password step: a challenge, no session. */
  async function challenge(email: string, c = client()) {
    const res = await c.signIn(email, TEST_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ signed_in: false, two_factor_required: true, challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_in_seconds: 300 });
    expect(res.setCookies.some((cookie) => /session=[^;]/.test(cookie) && !/max-age=0/i.test(cookie))).toBe(false);
    return { c, challenge: res.body.challenge as string };
  }

  it('enrols with a code, then signs in with password and code; the session reply says two-factor is on', async () => {
    const { email, c, phone, recovery } = await enrolled();
    expect(recovery).toHaveLength(10);
    expect((await c.request('GET', '/two-factor')).body).toEqual({ enabled: true, required: false, recovery_codes_left: 10 });
    // Enrolling again while on is refused (it would replace the confirmed secret).
    expect((await c.request('POST', '/two-factor/enrollment')).status).toBe(409);

    const step = await challenge(email);
    expect((await step.c.request('GET', '/keys')).status).toBe(401);
    // The next step's code works (the enrolment used the current one).
    const next = phone.at(Date.now() + 30_000);
    const done = await step.c.signInWithCode(step.challenge, next);
    expect(done.status).toBe(200);
    expect(done.body.user).toMatchObject({ email, two_factor: { enabled: true, required: false } });
    expect((await step.c.request('GET', '/keys')).status).toBe(200);
    const audit = (await step.c.request('GET', '/audit?action=user.signed_in')).body.data;
    expect(audit[0]).toMatchObject({ actor: email, details: { second_factor: 'totp' } });
    expect((await step.c.request('GET', '/audit?action=user.two_factor_enabled')).body.data).toHaveLength(1);
  });

  it('refuses a replayed code within its window, even on a fresh challenge', async () => {
    const { email, phone } = await enrolled();
    const code = phone.at(Date.now() + 30_000);
    const first = await challenge(email);
    expect((await first.c.signInWithCode(first.challenge, code)).status).toBe(200);
    const second = await challenge(email);
    const replay = await second.c.signInWithCode(second.challenge, code);
    expect({ status: replay.status, message: replay.body.error.message }).toEqual({ status: 422, message: WRONG });
    // An older code (the step before) is refused too: steps only move forward.
    expect((await second.c.signInWithCode(second.challenge, phone.at(Date.now() - 30_000))).status).toBe(422);
  });

  it('a recovery code signs in once; used again it is refused', async () => {
    const { email, recovery, c } = await enrolled();
    const first = await challenge(email);
    const done = await first.c.signInWithCode(first.challenge, recovery[3].toUpperCase());
    expect(done.status).toBe(200);
    const second = await challenge(email);
    const reused = await second.c.signInWithCode(second.challenge, recovery[3]);
    expect({ status: reused.status, message: reused.body.error.message }).toEqual({ status: 422, message: WRONG });
    expect((await c.request('GET', '/two-factor')).body.recovery_codes_left).toBe(9);
    expect((await c.request('GET', '/audit?action=user.recovery_code_used')).body.data[0]).toMatchObject({ details: { codes_left: 9 } });
  });

  it('a challenge ends after 5 wrong codes, is single use, expires, and a forged one is refused', async () => {
    const { email, phone } = await enrolled();
    const { c, challenge: token } = await challenge(email);
    for (let i = 0; i < 4; i++) expect((await answer(c, token, '000000')).body.error.message).toBe(WRONG);
    const fifth = await answer(c, token, '000001');
    expect({ status: fifth.status, message: fifth.body.error.message }).toEqual({ status: 401, message: EXPIRED });
    expect((await c.signInWithCode(token, phone.at(Date.now() + 30_000))).status).toBe(401);
    expect((await c.signInWithCode('forged-challenge-never-issued-000000000000', '123456')).status).toBe(401);

    const expiring = await challenge(email);
    await h.running.databases.auth.query(`UPDATE two_factor_challenges SET expires_at = now() - interval '1 second'`);
    expect((await expiring.c.signInWithCode(expiring.challenge, phone.at(Date.now() + 30_000))).status).toBe(401);
  });

  it('wrong codes are throttled per user across challenges: delays, then a lock (429), and recorded', async () => {
    const { email, c: owner } = await enrolled();
    const statuses: number[] = [];
    // A new challenge for every two wrong codes: the per-user count goes on across them.
    for (let i = 0; i < 5 && statuses[statuses.length - 1] !== 429; i++) {
      const step = await challenge(email);
      for (let j = 0; j < 2 && statuses[statuses.length - 1] !== 429; j++) statuses.push((await answer(step.c, step.challenge, '999999')).status);
    }
    // SIGN_IN_LOCK_AFTER=6: six wrong codes, then locked, however many challenges the password opens.
    expect(statuses).toEqual([422, 422, 422, 422, 422, 422, 429]);
    const locked = await challenge(email);
    const res = await locked.c.signInWithCode(locked.challenge, '999999');
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(60);
    const failed = (await owner.request('GET', '/audit?action=user.two_factor_failed')).body.data;
    expect(failed).toHaveLength(6);
  }, 60_000);

  it('turns off only with a valid code; then sign-in needs the password alone', async () => {
    const { email, c, phone } = await enrolled();
    const wrong = await c.request('POST', '/two-factor/disable', { body: { code: '000000', password: TEST_PASSWORD } });
    expect({ status: wrong.status, message: wrong.body.error.message }).toEqual({ status: 422, message: WRONG });
    expect((await c.request('POST', '/two-factor/disable', { body: { code: phone.at(Date.now() + 30_000), password: TEST_PASSWORD } })).status).toBe(204);
    const res = await client().signIn(email, TEST_PASSWORD);
    expect(res.body).toMatchObject({ signed_in: true, user: { two_factor: { enabled: false } } });
  });

  it('refuses a wrong confirmation code and malformed bodies, and changes nothing', async () => {
    const c = client();
    expect((await c.signUp(testEmail('2fa-bad'), TEST_PASSWORD)).status).toBe(201);
    expect((await c.request('POST', '/two-factor/enrollment/confirm', { body: { code: '123456', password: TEST_PASSWORD } })).status).toBe(409);
    await c.request('POST', '/two-factor/enrollment');
    const wrong = await c.request('POST', '/two-factor/enrollment/confirm', { body: { code: '12345', password: TEST_PASSWORD } });
    expect(wrong.status).toBe(422);
    expect((await c.request('POST', '/two-factor/enrollment/confirm', { body: {} })).status).toBe(422);
    expect((await c.request('GET', '/two-factor')).body).toEqual({ enabled: false, required: false, recovery_codes_left: 0 });
  });

  it('an account that requires two-factor sends members without it to enrolment before anything else', async () => {
    const c = client();
    const email = testEmail('2fa-required');
    expect((await c.signUp(email, TEST_PASSWORD)).status).toBe(201);
    // Turning the requirement on needs it on for yourself first.
    const early = await c.request('PUT', '/account/two-factor-requirement', { body: { required: true } });
    expect(early.status).toBe(409);
    // Another owner turned it on (members arrive with the membership table; here set as that owner would).
    await h.running.databases.auth.query(`UPDATE accounts SET require_two_factor = true WHERE id = (SELECT account_id FROM users WHERE email = $1)`, [email]);
    const keys = await c.request('GET', '/keys');
    expect(keys.status).toBe(403);
    expect(keys.body.error.code).toBe('two_factor_enrollment_required');
    expect((await c.session()).body.user.two_factor).toEqual({ enabled: false, required: true });
    const begun = await c.request('POST', '/two-factor/enrollment');
    expect(begun.status).toBe(201);
    const phone = app(begun.body.otpauth_uri);
    expect((await c.request('POST', '/two-factor/enrollment/confirm', { body: { code: phone.now(), password: TEST_PASSWORD } })).status).toBe(200);
    expect((await c.request('GET', '/keys')).status).toBe(200);
    // While required it cannot be turned off; the owner can lift the requirement (recorded).
    expect((await c.request('POST', '/two-factor/disable', { body: { code: phone.at(Date.now() + 30_000), password: TEST_PASSWORD } })).status).toBe(409);
    const lifted = await c.request('PUT', '/account/two-factor-requirement', { body: { required: false } });
    expect({ status: lifted.status, body: lifted.body }).toEqual({ status: 200, body: { required: false } });
    expect((await c.request('PUT', '/account/two-factor-requirement', { body: { required: 'yes' } })).status).toBe(422);
    expect((await c.request('GET', '/audit?action=account.two_factor_required_set')).body.data[0]).toMatchObject({ details: { required: false } });
  });

  it('renews recovery codes with a code: the old ones stop working', async () => {
    const { email, c, phone, recovery } = await enrolled();
    const renewed = await c.request('POST', '/two-factor/recovery-codes', { body: { code: phone.at(Date.now() + 30_000) } });
    expect(renewed.status).toBe(200);
    expect(renewed.body.recovery_codes).toHaveLength(10);
    const old = await challenge(email);
    expect((await old.c.signInWithCode(old.challenge, recovery[0])).status).toBe(422);
    expect((await old.c.signInWithCode(old.challenge, renewed.body.recovery_codes[0])).status).toBe(200);
  });

  it('turning two-factor on or off asks for the password again', async () => {
    const c = client();
    const email = testEmail('2fa-password');
    expect((await c.signUp(email, TEST_PASSWORD)).status).toBe(201);
    const phone = app((await c.request('POST', '/two-factor/enrollment')).body.otpauth_uri);
    const confirm = (body: object) => c.request('POST', '/two-factor/enrollment/confirm', { body });
    expect((await confirm({ code: phone.now() })).body.error.message).toBe('password: Enter your password to confirm.');
    expect((await confirm({ code: phone.now(), password: 'not my password' })).body.error.message).toBe('password: This is not your current password.');
    expect((await c.request('GET', '/two-factor')).body.enabled).toBe(false);
    expect((await confirm({ code: phone.now(), password: TEST_PASSWORD })).status).toBe(200);
    const disable = (body: object) => c.request('POST', '/two-factor/disable', { body });
    expect((await disable({ code: phone.at(Date.now() + 30_000) })).status).toBe(422);
    const wrong = await disable({ code: phone.at(Date.now() + 30_000), password: 'not my password' });
    expect({ status: wrong.status, message: wrong.body.error.message }).toEqual({ status: 422, message: 'password: This is not your current password.' });
    expect((await c.request('GET', '/two-factor')).body.enabled).toBe(true);
  });

  it('gives recovery codes of 20 characters (about 99 bits); a code of the old 10-character kind still works', async () => {
    const { email, c, recovery } = await enrolled();
    for (const code of recovery) expect(code).toMatch(/^[a-hjkmnp-z2-9]{5}(-[a-hjkmnp-z2-9]{5}){3}$/);
    // A code issued before, stored as it was then: SHA-256 of "<user id>:<code without dashes>".
    const userId = (await c.session()).body.user.id as string;
    const hash = createHash('sha256').update(`${userId}:abcdefghjk`, 'utf8').digest();
    await h.running.databases.auth.query(`INSERT INTO two_factor_recovery_codes (user_id, code_hash) VALUES ($1, $2)`, [userId, hash]);
    const old = await challenge(email);
    expect((await old.c.signInWithCode(old.challenge, 'abcde-fghjk')).status).toBe(200);
  });

  it('a password reset ends the sign-ins waiting for their code', async () => {
    const { email, phone } = await enrolled();
    const pending = await challenge(email);
    // A reset link, as the mail would carry it (its token's SHA-256 is what is stored).
    const token = `reset-${Date.now()}-${'x'.repeat(20)}`;
    await h.running.databases.auth.query(
      `INSERT INTO password_resets (user_id, token_hash, expires_at) SELECT id, $2, now() + interval '1 hour' FROM users WHERE email = $1`,
      [email, createHash('sha256').update(token, 'utf8').digest()],
    );
    const resetter = client();
    await resetter.session();
    expect((await resetter.request('POST', '/password-reset/complete', { body: { token, new_password: 'a brand new passphrase' } })).status).toBe(200);
    const res = await pending.c.signInWithCode(pending.challenge, phone.at(Date.now() + 30_000));
    expect({ status: res.status, message: res.body.error?.message }).toEqual({ status: 401, message: EXPIRED });
  });
});
