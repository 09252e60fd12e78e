import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeysService } from '@gen/gateway';
import { http } from '@gen/testing';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/**
 * The dashboard's JSON API over HTTP, as the pages use it: accounts and sessions, CSRF, sign-in
 * throttling, keys and their webhook secrets, generations, and tenant isolation. The webhook policy
 * here is production's (https only, no private addresses), so URL validation is checked as deployed.
 */
describe('dashboard API (standalone)', () => {
  let h: StandaloneHarness;
  let staticDir: string;
  let address = 0;
  /** A client with its own client address (X-Forwarded-For), so throttling counters never mix between tests. */
  const client = () => new DashboardClient(h.url, { 'x-forwarded-for': `198.51.100.${++address}` });

  beforeAll(async () => {
    staticDir = mkdtempSync(join(tmpdir(), 'gen-dashboard-static-'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>dashboard</title><div id="root"></div>');
    h = await startStandaloneHarness({
      SIGNUP_CREDITS: '250',
      SIGN_IN_LOCK_AFTER: '5',
      SIGN_IN_ADDRESS_LOCK_AFTER: '4',
      WEBHOOK_ALLOW_HTTP: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
      DASHBOARD_DIR: staticDir,
    });
  });
  afterAll(async () => {
    await h.close();
    rmSync(staticDir, { recursive: true, force: true });
  });

  const expectEnvelope = (res: { status: number; body: any }, status: number, code: string) => {
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
    expect(res.body.error).toEqual({ code, status, message: expect.any(String), request_id: expect.any(String) });
  };

  async function signedUp(label = 'user'): Promise<{ c: DashboardClient; email: string }> {
    const c = client();
    const email = testEmail(label);
    const res = await c.signUp(email, TEST_PASSWORD);
    expect(res.status).toBe(201);
    return { c, email };
  }

  describe('sign-up, sign-in, sign-out', () => {
    it('hands an anonymous CSRF token in an httpOnly SameSite cookie, and the sign-up terms', async () => {
      const c = client();
      const res = await c.session();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ signed_in: false, csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), sign_up: { enabled: true, mode: 'open', credits: 250, verification_required: false } });
      expect(res.setCookies).toEqual([expect.stringMatching(/^gs_csrf=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/)]);
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('creates a Free account with the configured grant and signs in at once', async () => {
      const c = client();
      const email = testEmail('Fresh');
      const res = await c.signUp(email, TEST_PASSWORD);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ signed_in: true, user: { email }, account: { name: email } });
      const session = res.setCookies.find((cookie) => cookie.startsWith('gs_session='));
      // httpOnly, SameSite=Lax, whole site; not Secure over plain http (the harness's PUBLIC_BASE_URL).
      expect(session).toMatch(/^gs_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax$/);
      const overview = await c.request('GET', '/overview');
      expect(overview.status).toBe(200);
      expect(overview.body).toMatchObject({
        plan: 'free',
        limits: { requests_per_minute: 10, parallel_tasks: 1 },
        credits: { available: 250, held: 0 },
        active_keys: 0,
        recent_generations: [],
      });
    });

    it('stores a scrypt hash with a per-user salt, never the password', async () => {
      const a = await signedUp('hash-a');
      const b = await signedUp('hash-b');
      const rows: Array<{ password_hash: string }> = await h.running.databases.auth.query(
        'SELECT password_hash FROM users WHERE email IN ($1, $2)',
        [a.email, b.email],
      );
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row.password_hash).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
        expect(row.password_hash).not.toContain(TEST_PASSWORD);
      }
      expect(rows[0].password_hash.split('$')[4]).not.toBe(rows[1].password_hash.split('$')[4]);
    });

    it('treats emails case-insensitively: one account per address', async () => {
      const { email } = await signedUp('Case');
      const again = await client().signUp(email.toUpperCase(), 'another long password');
      expectEnvelope(again, 409, 'conflict');
      expect(again.body.error.message).toMatch(/^email: /);
      const signIn = await client().signIn(email.toUpperCase(), TEST_PASSWORD);
      expect(signIn.status).toBe(200);
      expect(signIn.body.user.email).toBe(email);
    });

    it.each([
      ['a short password', { email: 'short@example.com', password: 'short' }, /^password: .*10 characters/],
      ['the email as password', { email: 'same@example.com', password: 'same@example.com' }, /^password: /],
      ['a malformed email', { email: 'not-an-email', password: TEST_PASSWORD }, /^email: /],
      ['a missing password', { email: 'x@example.com' }, /password/],
    ])('refuses sign-up with %s (422, the message names the field)', async (_label, body, message) => {
      const c = client();
      await c.session();
      const res = await c.request('POST', '/sign-up', { body });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toMatch(message);
    });

    it('answers a wrong password and an unknown email the same way', async () => {
      const { email } = await signedUp('wrong');
      const wrong = await client().signIn(email, 'not the password at all');
      const unknown = await client().signIn(testEmail('nobody'), 'not the password at all');
      expectEnvelope(wrong, 401, 'unauthorized');
      expectEnvelope(unknown, 401, 'unauthorized');
      expect(wrong.body.error.message).toBe('Email or password is incorrect.');
      expect(unknown.body.error.message).toBe(wrong.body.error.message);
      expect(wrong.setCookies.some((c) => c.startsWith('gs_session='))).toBe(false);
    });

    it('issues a new session token at every sign-in and ends the previous one', async () => {
      const { c, email } = await signedUp('rotate');
      const before = c.cookies.get('gs_session');
      const again = await c.signIn(email, TEST_PASSWORD);
      expect(again.status).toBe(200);
      expect(c.cookies.get('gs_session')).not.toBe(before);
      const stale = new DashboardClient(h.url);
      stale.cookies.set('gs_session', before as string);
      expectEnvelope(await stale.request('GET', '/overview'), 401, 'unauthorized');
      expect((await c.request('GET', '/overview')).status).toBe(200);
    });

    it('signs out: the session row is gone and the cookie is cleared', async () => {
      const { c } = await signedUp('out');
      const token = c.cookies.get('gs_session') as string;
      const out = await c.request('POST', '/sign-out');
      expect(out.status).toBe(204);
      expect(out.setCookies).toContainEqual(expect.stringMatching(/^gs_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/));
      const replay = new DashboardClient(h.url);
      replay.cookies.set('gs_session', token);
      expectEnvelope(await replay.request('GET', '/overview'), 401, 'unauthorized');
      expect((await c.session()).body.signed_in).toBe(false);
    });

    it('ends sessions past their expiry or idle for longer than the idle timeout', async () => {
      const expired = await signedUp('expired');
      const idle = await signedUp('idle');
      await h.running.databases.auth.query(
        `UPDATE sessions SET expires_at = now() - interval '1 second'
          WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
        [expired.email],
      );
      await h.running.databases.auth.query(
        `UPDATE sessions SET last_seen_at = now() - interval '25 hours'
          WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
        [idle.email],
      );
      expectEnvelope(await expired.c.request('GET', '/overview'), 401, 'unauthorized');
      expectEnvelope(await idle.c.request('GET', '/overview'), 401, 'unauthorized');
    });
  });

  describe('CSRF', () => {
    it('refuses every state-changing call without the session\'s token', async () => {
      const { c } = await signedUp('csrf');
      const anonymous = await new DashboardClient(h.url).session();
      for (const csrf of [null, '', 'x'.repeat(43), anonymous.body.csrf_token]) {
        expectEnvelope(await c.request('POST', '/keys', { body: { name: 'k' }, csrf }), 403, 'forbidden');
        expectEnvelope(await c.request('POST', '/sign-out', { csrf }), 403, 'forbidden');
      }
      expect((await c.request('GET', '/keys')).body.data).toEqual([]);
      expect((await c.request('POST', '/keys', { body: { name: 'k' } })).status).toBe(201);
    });

    it('refuses a foreign Origin or a cross-site fetch even with the right token', async () => {
      const { c } = await signedUp('origin');
      expectEnvelope(await c.request('POST', '/keys', { body: { name: 'k' }, headers: { origin: 'https://evil.example' } }), 403, 'forbidden');
      expectEnvelope(await c.request('POST', '/keys', { body: { name: 'k' }, headers: { 'sec-fetch-site': 'cross-site' } }), 403, 'forbidden');
      expect((await c.request('POST', '/keys', { body: { name: 'k' }, headers: { origin: h.url } })).status).toBe(201);
    });

    it('protects sign-in and sign-up with the anonymous token (double submit)', async () => {
      const c = client();
      await c.session();
      expectEnvelope(await c.request('POST', '/sign-up', { body: { email: testEmail(), password: TEST_PASSWORD }, csrf: null }), 403, 'forbidden');
      expectEnvelope(await c.request('POST', '/sign-in', { body: { email: testEmail(), password: TEST_PASSWORD }, csrf: 'forged' }), 403, 'forbidden');
      const cookieless = new DashboardClient(h.url);
      expectEnvelope(
        await cookieless.request('POST', '/sign-in', { body: { email: testEmail(), password: TEST_PASSWORD }, csrf: c.csrf }),
        403,
        'forbidden',
      );
    });

    it('needs a session for every dashboard call but the session endpoint', async () => {
      const c = client();
      await c.session();
      for (const [method, path] of [
        ['GET', '/overview'],
        ['GET', '/generations'],
        ['GET', '/keys'],
        ['POST', '/keys'],
      ]) {
        expectEnvelope(await c.request(method, path, method === 'POST' ? { body: { name: 'k' } } : {}), 401, 'unauthorized');
      }
    });
  });

  describe('sign-in throttling', () => {
    /** A wrong password for `email` from `c`'s address; the status (401 wrong, 429 throttled) and Retry-After. */
    const attempt = async (c: DashboardClient, email: string, password = 'wrong password!') => {
      const res = await c.signIn(email, password);
      return { status: res.status, retryAfter: Number(res.headers.get('retry-after') ?? 0), message: res.body?.error?.message };
    };

    it('slows down repeated failures for one email, then locks it briefly, whatever the address', async () => {
      const { email } = await signedUp('locked');
      const results = [];
      for (let i = 0; i < 3; i++) results.push((await attempt(client(), email)).status);
      expect(results).toEqual([401, 401, 401]);
      // The 4th comes too soon: wait 1 s, then 2 s before the 5th.
      const early = await attempt(client(), email);
      expect(early).toMatchObject({ status: 429, retryAfter: 1 });
      expect(early.message).toMatch(/Too many attempts\. Wait 1 second/);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await attempt(client(), email)).status).toBe(401);
      expect(await attempt(client(), email)).toMatchObject({ status: 429, retryAfter: 2 });
      await new Promise((r) => setTimeout(r, 2100));
      expect((await attempt(client(), email)).status).toBe(401); // the 5th failure: locked now
      const locked = await attempt(client(), email, TEST_PASSWORD); // even the right password waits
      expect(locked.status).toBe(429);
      expect(locked.retryAfter).toBeGreaterThan(800);
      expect(locked.message).toMatch(/15 minutes/);
    });

    it('throttles an unknown email exactly like a known one (no hint that it exists)', async () => {
      const unknown = testEmail('ghost');
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await attempt(client(), unknown)).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
    });

    it('counts parallel guesses exactly (attempts are counted under a row lock before the password is checked)', async () => {
      const { email } = await signedUp('parallel');
      const statuses = (await Promise.all(Array.from({ length: 8 }, () => attempt(client(), email)))).map((r) => r.status).sort();
      expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
    });

    it('slows down and locks one address guessing many emails', async () => {
      const c = client();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await attempt(c, testEmail('spray'))).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await attempt(c, testEmail('spray'))).status).toBe(401); // 4th failure: address locked
      const { email } = await signedUp('victim');
      expect((await attempt(c, email, TEST_PASSWORD)).status).toBe(429);
      // Another address is not affected.
      expect((await attempt(client(), email, TEST_PASSWORD)).status).toBe(200);
    });

    it('a successful sign-in clears the email\'s failures', async () => {
      const { email } = await signedUp('recovers');
      for (let i = 0; i < 3; i++) expect((await attempt(client(), email)).status).toBe(401);
      expect((await attempt(client(), email, TEST_PASSWORD)).status).toBe(429);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await attempt(client(), email, TEST_PASSWORD)).status).toBe(200);
      expect((await attempt(client(), email)).status).toBe(401);
      expect((await attempt(client(), email)).status).toBe(401);
    });
  });

  describe('API keys', () => {
    it('shows a new key once; the list has its prefix, last four, scopes and dates only', async () => {
      const { c } = await signedUp('keys');
      const created = await c.request('POST', '/keys', { body: { name: '  reporting  ', scopes: ['read'] } });
      expect(created.status).toBe(201);
      const key: string = created.body.api_key;
      expect(key).toMatch(/^gsk_live_[0-9A-Za-z]{32}$/);
      expect(created.body).toMatchObject({ webhook_secret: null, key: { name: 'reporting', scopes: ['read'], status: 'active' } });
      const list = await c.request('GET', '/keys');
      expect(list.body.data).toEqual([
        {
          id: created.body.key.id,
          name: 'reporting',
          prefix: key.slice(0, 'gsk_live_'.length + 8),
          last4: key.slice(-4),
          scopes: ['read'],
          status: 'active',
          webhook_url: null,
          has_webhook_secret: false,
          webhook_scheme: 'service',
          previous_secret_until: null,
          created_at: expect.any(String),
          last_used_at: null,
          revoked_at: null,
          caps: {
            per_day: null,
            per_month: null,
            spent_today: 0,
            spent_this_month: 0,
            day_resets_at: expect.any(String),
            month_resets_at: expect.any(String),
          },
        },
      ]);
      expect(JSON.stringify(list.body)).not.toContain(key.slice(17));

      // The key works with its scopes only, and records its use.
      expect((await http(h.url, 'GET', '/api/v1/credits', { key })).status).toBe(200);
      expectEnvelope(
        await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' } }),
        403,
        'forbidden',
      );
      await new Promise((r) => setTimeout(r, 100));
      expect((await c.request('GET', '/keys')).body.data[0].last_used_at).toEqual(expect.any(String));
    });

    it('revokes a key: 401 on the API at once, listed as revoked, and no further changes', async () => {
      const { c } = await signedUp('revoke');
      const created = await c.request('POST', '/keys', { body: { name: 'temp' } });
      const key = created.body.api_key;
      expect((await http(h.url, 'GET', '/api/v1/models', { key })).status).toBe(200);
      expect((await c.request('DELETE', `/keys/${created.body.key.id}`)).status).toBe(204);
      expectEnvelope(await http(h.url, 'GET', '/api/v1/models', { key }), 401, 'unauthorized');
      expect((await c.request('GET', '/keys')).body.data[0]).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
      expectEnvelope(await c.request('DELETE', `/keys/${created.body.key.id}`), 404, 'not_found');
      expectEnvelope(await c.request('POST', `/keys/${created.body.key.id}/webhook-secret`), 404, 'not_found');
      expectEnvelope(await c.request('PATCH', `/keys/${created.body.key.id}`, { body: { webhook_url: 'https://example.com/h' } }), 404, 'not_found');
    });

    it.each([
      ['', 'name: Enter a name'],
      ['x'.repeat(101), 'name: Use at most 100'],
    ])('refuses a key named %j', async (name, message) => {
      const { c } = await signedUp('badname');
      const res = await c.request('POST', '/keys', { body: { name } });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toContain(message);
    });

    it('refuses unknown scopes and unknown fields', async () => {
      const { c } = await signedUp('scopes');
      expectEnvelope(await c.request('POST', '/keys', { body: { name: 'k', scopes: ['admin'] } }), 422, 'validation_error');
      expectEnvelope(await c.request('POST', '/keys', { body: { name: 'k', scopes: [] } }), 422, 'validation_error');
      expectEnvelope(await c.request('POST', '/keys', { body: { name: 'k', account_id: 'x' } }), 422, 'validation_error');
    });

    it.each([
      ['http://hooks.example.com/x', 'must use https'],
      ['https://127.0.0.1/x', 'loopback'],
      ['https://10.0.0.8/x', 'private'],
      ['https://169.254.169.254/latest', 'metadata'],
      ['https://localhost:8443/x', 'local machine'],
      ['https://user:secret@hooks.example.com/x', 'user name or password'],
      ['hooks.example.com/x', 'absolute URL'],
    ])('validates a default webhook URL with the deployment\'s rules: %s', async (url, reason) => {
      const { c } = await signedUp('url');
      const res = await c.request('POST', '/keys', { body: { name: 'k', webhook_url: url } });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toMatch(new RegExp(`^webhook_url: .*${reason}`));
      const key = (await c.request('POST', '/keys', { body: { name: 'k2' } })).body.key;
      const patch = await c.request('PATCH', `/keys/${key.id}`, { body: { webhook_url: url } });
      expectEnvelope(patch, 422, 'validation_error');
    });

    it('generates a signing secret with the first webhook URL, shows it once, and renews it', async () => {
      const { c } = await signedUp('secret');
      const keys = h.running.app.get(ApiKeysService);
      const created = await c.request('POST', '/keys', { body: { name: 'hooks', webhook_url: 'https://hooks.example.com/generation' } });
      const id = created.body.key.id;
      const first: string = created.body.webhook_secret;
      expect(first).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
      expect(created.body.key).toMatchObject({ webhook_url: 'https://hooks.example.com/generation', has_webhook_secret: true });
      // The dispatcher's view (RPC auth.webhook-secret.get) is the secret in clear; the table holds it encrypted.
      await expect(keys.webhookSettings(id)).resolves.toEqual({ secret: first, defaultWebhookUrl: 'https://hooks.example.com/generation' });
      const [row] = await h.running.databases.auth.query('SELECT webhook_secret FROM api_keys WHERE id = $1', [id]);
      expect(row.webhook_secret).toMatch(/^v1\.[0-9a-f]{8}\./);
      expect(row.webhook_secret).not.toContain(first.slice(6));

      // Changing the URL keeps the secret (and does not show it again); removing it too.
      const moved = await c.request('PATCH', `/keys/${id}`, { body: { webhook_url: 'https://hooks.example.com/v2' } });
      expect(moved.body).toMatchObject({ webhook_secret: null, key: { webhook_url: 'https://hooks.example.com/v2', has_webhook_secret: true } });
      const removed = await c.request('PATCH', `/keys/${id}`, { body: { webhook_url: null } });
      expect(removed.body).toMatchObject({ webhook_secret: null, key: { webhook_url: null, has_webhook_secret: true } });
      expect((await keys.webhookSettings(id)).secret).toBe(first);

      const renewed = await c.request('POST', `/keys/${id}/webhook-secret`);
      expect(renewed.status).toBe(200);
      const second: string = renewed.body.webhook_secret;
      expect(second).toMatch(/^whsec_/);
      expect(second).not.toBe(first);
      expect((await keys.webhookSettings(id)).secret).toBe(second);
    });

    it('generates a secret when a URL is first set on a key that has none', async () => {
      const { c } = await signedUp('later');
      const key = (await c.request('POST', '/keys', { body: { name: 'k' } })).body.key;
      expect(key.has_webhook_secret).toBe(false);
      const set = await c.request('PATCH', `/keys/${key.id}`, { body: { webhook_url: 'https://hooks.example.com/a' } });
      expect(set.body.webhook_secret).toMatch(/^whsec_/);
      expect(set.body.key.has_webhook_secret).toBe(true);
    });

    it('keeps accounts apart: another account\'s key is 404 for every change', async () => {
      const alice = await signedUp('alice');
      const bob = await signedUp('bob');
      const key = (await alice.c.request('POST', '/keys', { body: { name: 'alice key' } })).body.key;
      expectEnvelope(await bob.c.request('DELETE', `/keys/${key.id}`), 404, 'not_found');
      expectEnvelope(await bob.c.request('POST', `/keys/${key.id}/webhook-secret`), 404, 'not_found');
      expectEnvelope(await bob.c.request('PATCH', `/keys/${key.id}`, { body: { webhook_url: 'https://bob.example.com/' } }), 404, 'not_found');
      expectEnvelope(await bob.c.request('DELETE', '/keys/not-a-uuid'), 404, 'not_found');
      expect((await bob.c.request('GET', '/keys')).body.data).toEqual([]);
      expect((await alice.c.request('GET', '/keys')).body.data[0]).toMatchObject({ status: 'active', has_webhook_secret: false });
    });
  });

  describe('generations', () => {
    it('lists with filters and cursor pages, shows one with its deliveries, and hides other accounts\' (404)', async () => {
      const alice = await signedUp('gen-alice');
      const bob = await signedUp('gen-bob');
      const key = (await alice.c.request('POST', '/keys', { body: { name: 'gen' } })).body.api_key;
      const ids: string[] = [];
      for (const prompt of ['one', 'two', 'three']) {
        const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt, type: 'TEXT_TO_IMAGE' } });
        expect(res.status).toBe(200);
        ids.push(res.body.id);
      }
      const first = await alice.c.request('GET', '/generations?limit=2');
      expect(first.body.data.map((g: { id: string }) => g.id)).toEqual([ids[2], ids[1]]);
      const second = await alice.c.request('GET', `/generations?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
      expect(second.body.data.map((g: { id: string }) => g.id)).toEqual([ids[0]]);
      expect((await alice.c.request('GET', '/generations?status=completed&type=TEXT_TO_IMAGE')).body.data).toHaveLength(3);
      expect((await alice.c.request('GET', '/generations?status=failed')).body.data).toEqual([]);
      expect((await alice.c.request('GET', '/generations?type=TEXT_TO_AUDIO')).body.data).toEqual([]);
      expectEnvelope(await alice.c.request('GET', '/generations?status=done'), 422, 'validation_error');

      const overview = await alice.c.request('GET', '/overview');
      expect(overview.body).toMatchObject({ credits: { available: 250 - 12, held: 0 }, active_keys: 1 });
      expect(overview.body.recent_generations).toHaveLength(3);

      const detail = await alice.c.request('GET', `/generations/${ids[0]}`);
      expect(detail.status).toBe(200);
      expect(detail.body.generation).toMatchObject({ id: ids[0], status: 'completed', prompt: 'one', output_url: expect.stringContaining('/cdn/') });
      // No webhook URL anywhere: the delivery log is there, and empty; nothing to send again.
      expect(detail.body.deliveries).toEqual({ available: true, message: null, data: [] });
      expectEnvelope(await alice.c.request('POST', `/generations/${ids[0]}/redeliver`), 409, 'conflict');
      expectEnvelope(await bob.c.request('POST', `/generations/${ids[0]}/redeliver`), 404, 'not_found');

      expectEnvelope(await bob.c.request('GET', `/generations/${ids[0]}`), 404, 'not_found');
      expect((await bob.c.request('GET', '/generations')).body.data).toEqual([]);
      expectEnvelope(await alice.c.request('GET', '/generations/not-a-uuid'), 404, 'not_found');
    });
  });

  describe('pages', () => {
    it('serves the app for every page path, with a strict CSP and no framing', async () => {
      for (const path of ['/dashboard', '/dashboard/', '/dashboard/generations/123', '/dashboard/settings/keys']) {
        const res = await fetch(`${h.url}${path}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
        expect(res.headers.get('x-frame-options')).toBe('DENY');
        expect(await res.text()).toContain('<div id="root">');
      }
    });

    it('answers missing files and API routes with the envelope', async () => {
      for (const path of ['/dashboard/assets/missing.js', '/dashboard/api/nope', '/dashboard/..%2f..%2fetc%2fpasswd.txt']) {
        const res = await http(h.url, 'GET', path);
        expectEnvelope(res, 404, 'not_found');
      }
    });
  });

  describe('over https (PUBLIC_BASE_URL https://...)', () => {
    let secure: StandaloneHarness;
    beforeAll(async () => {
      secure = await startStandaloneHarness({ PUBLIC_BASE_URL: 'https://dashboard.example.com', DASHBOARD_DIR: staticDir });
    });
    afterAll(() => secure.close());

    it('marks cookies Secure with __Host- names, and accepts the public origin', async () => {
      const c = new DashboardClient(secure.url, { 'x-forwarded-for': '203.0.113.7' });
      const anonymous = await c.session();
      expect(anonymous.setCookies).toEqual([expect.stringMatching(/^__Host-gs_csrf=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/)]);
      const signUp = await c.request('POST', '/sign-up', {
        body: { email: testEmail('secure'), password: TEST_PASSWORD },
        headers: { origin: 'https://dashboard.example.com' },
      });
      expect(signUp.status).toBe(201);
      expect(signUp.setCookies).toContainEqual(
        expect.stringMatching(/^__Host-gs_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure$/),
      );
      c.csrf = signUp.body.csrf_token;
      expect((await c.request('GET', '/overview')).status).toBe(200);
      // A cookie without the __Host- name is not this deployment's session.
      const plain = new DashboardClient(secure.url);
      plain.cookies.set('gs_session', c.cookies.get('__Host-gs_session') as string);
      expectEnvelope(await plain.request('GET', '/overview'), 401, 'unauthorized');
    });
  });
});
