import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BillingService } from '@gen/billing';
import { http } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/**
 * The dashboard's JSON API behind the product pages (issue 16): models, the playground's submit,
 * usage (ledger, summary, CSV), test events per key, sessions and password change; tenant isolation.
 */
describe('dashboard API: playground, models, usage, test events, account (standalone)', () => {
  let h: StandaloneHarness;
  let receiver: Server;
  let receiverUrl = '';
  const received: Array<{ headers: IncomingHttpHeaders; raw: Buffer }> = [];
  let address = 0;
  const client = () => new DashboardClient(h.url, { 'x-forwarded-for': `203.0.113.${++address}` });

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    h = await startStandaloneHarness({ SIGNUP_CREDITS: '300' });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const expectEnvelope = (res: { status: number; body: any }, status: number, code: string) => {
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
    expect(res.body.error).toEqual({ code, status, message: expect.any(String), request_id: expect.any(String) });
  };

  async function signedUp(label: string): Promise<{ c: DashboardClient; email: string; accountId: string }> {
    const c = client();
    const email = testEmail(label);
    const res = await c.signUp(email, TEST_PASSWORD);
    expect(res.status).toBe(201);
    return { c, email, accountId: res.body.account.id };
  }

  async function newKey(c: DashboardClient, body: Record<string, unknown> = { name: 'k' }) {
    const res = await c.request('POST', '/keys', { body });
    expect(res.status).toBe(201);
    return res.body as { key: { id: string; prefix: string }; api_key: string; webhook_secret: string | null };
  }

  describe('models', () => {
    it('lists the catalogue as GET /api/v1/models does for the account, with its plan and credits', async () => {
      const { c } = await signedUp('models');
      const key = await newKey(c);
      const res = await c.request('GET', '/models');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body).toMatchObject({ plan: 'free', credits: { available: 300, held: 0 } });
      const api = await http(h.url, 'GET', '/api/v1/models', { key: key.api_key });
      expect(res.body.data).toEqual(api.body.data);
      const gated = res.body.data.find((m: { min_plan: string }) => m.min_plan !== 'free');
      expect(gated).toMatchObject({ available: false, unavailable_reason: expect.stringMatching(/plan/) });
      expect((await client().request('GET', '/models')).status).toBe(401);
    });
  });

  describe('playground', () => {
    it('submits with a key of the account through the same use case: record, credits, rate-limit headers', async () => {
      const { c } = await signedUp('play');
      const key = await newKey(c);
      const res = await c.request('POST', `/keys/${key.key.id}/generate`, { body: { model: 'pixel-flux-1', prompt: 'a lighthouse', type: 'TEXT_TO_IMAGE' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'completed', model: 'pixel-flux-1', prompt: 'a lighthouse', credits_charged: expect.any(Number) });
      expect(res.headers.get('location')).toBe(`/api/v1/generations/${res.body.id}`);
      expect(res.headers.get('ratelimit-limit')).toBe('10');
      expect(res.headers.get('ratelimit-remaining')).toBe('9');
      // The generation is the account's, seen by the API with the same key.
      const seen = await http(h.url, 'GET', `/api/v1/generations/${res.body.id}`, { key: key.api_key });
      expect(seen.body).toMatchObject({ id: res.body.id, status: 'completed' });
      const overview = await c.request('GET', '/overview');
      expect(overview.body.credits.available).toBe(300 - res.body.credits_charged);
      // An asynchronous model answers 202 at once.
      const video = await c.request('POST', `/keys/${key.key.id}/generate`, { body: { model: 'motion-lite-1', prompt: 'waves', type: 'TEXT_TO_VIDEO' } });
      expect(video.status).toBe(202);
      // Idempotency-Key works as on the API.
      const idem = { 'idempotency-key': '6f1c1c5e-3b1e-4a57-9c1a-6b2d0f0e9a11' };
      const once = await c.request('POST', `/keys/${key.key.id}/generate`, { body: { model: 'pixel-flux-1', prompt: 'once', type: 'TEXT_TO_IMAGE' }, headers: idem });
      const twice = await c.request('POST', `/keys/${key.key.id}/generate`, { body: { model: 'pixel-flux-1', prompt: 'once', type: 'TEXT_TO_IMAGE' }, headers: idem });
      expect(twice.body.id).toBe(once.body.id);
      expect(twice.headers.get('idempotent-replayed')).toBe('true');
    });

    it('applies the plan, credit, validation and scope rules of the API, and the account rate limit', async () => {
      const { c, accountId } = await signedUp('rules');
      const key = await newKey(c);
      const readOnly = await newKey(c, { name: 'read', scopes: ['read'] });
      const gen = (id: string, body: Record<string, unknown>) => c.request('POST', `/keys/${id}/generate`, { body });
      expectEnvelope(await gen(key.key.id, { model: 'mesh-smith-1', prompt: 'a cube', type: 'TEXT_TO_3D' }), 403, 'forbidden');
      const invalid = await gen(key.key.id, { model: 'pixel-flux-1', prompt: '', type: 'TEXT_TO_IMAGE' });
      expectEnvelope(invalid, 422, 'validation_error');
      expect(invalid.body.error.message).toMatch(/prompt/);
      expectEnvelope(await gen(key.key.id, { model: 'nope', prompt: 'x', type: 'TEXT_TO_IMAGE' }), 422, 'validation_error');
      expectEnvelope(await gen(readOnly.key.id, { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' }), 403, 'forbidden');
      // Without credits: 402, the minimum named.
      await h.running.app.get(BillingService).adjust(accountId, -300, 'test: empty the account');
      const poor = await gen(key.key.id, { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' });
      expectEnvelope(poor, 402, 'insufficient_credits');
      // Free plan: 10 requests per minute for the whole account, the playground included (5 counted so far).
      let last = poor;
      for (let i = 0; i < 6; i++) last = await gen(key.key.id, { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' });
      expectEnvelope(last, 429, 'rate_limit_exceeded');
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it("refuses another account's key, a revoked key, a missing CSRF token and no session", async () => {
      const alice = await signedUp('play-alice');
      const bob = await signedUp('play-bob');
      const key = await newKey(alice.c);
      const body = { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' };
      expectEnvelope(await bob.c.request('POST', `/keys/${key.key.id}/generate`, { body }), 404, 'not_found');
      expectEnvelope(await bob.c.request('POST', '/keys/not-a-uuid/generate', { body }), 404, 'not_found');
      expectEnvelope(await alice.c.request('POST', `/keys/${key.key.id}/generate`, { body, csrf: null }), 403, 'forbidden');
      expectEnvelope(await client().request('POST', `/keys/${key.key.id}/generate`, { body }), 401, 'unauthorized');
      await alice.c.request('DELETE', `/keys/${key.key.id}`);
      expectEnvelope(await alice.c.request('POST', `/keys/${key.key.id}/generate`, { body }), 404, 'not_found');
    });
  });

  describe('usage', () => {
    it('shows the ledger (as the API does), the spending per day and model, and exports it as CSV', async () => {
      const { c } = await signedUp('usage');
      const key = await newKey(c);
      const made = await c.request('POST', `/keys/${key.key.id}/generate`, { body: { model: 'pixel-flux-1', prompt: 'a, "quoted" prompt', type: 'TEXT_TO_IMAGE' } });
      const price = made.body.credits_charged;
      // Billing captures the hold when it sees the generation.completed event, just after the answer.
      const deadline = Date.now() + 10_000;
      let ledger = await c.request('GET', '/usage/ledger?limit=2');
      while (ledger.body.data[0]?.kind !== 'capture' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        ledger = await c.request('GET', '/usage/ledger?limit=2');
      }
      expect(ledger.status).toBe(200);
      expect(ledger.body.data.map((e: { kind: string }) => e.kind)).toEqual(['capture', 'hold']);
      expect(ledger.body.data[0]).toMatchObject({ generation_id: made.body.id, model: 'pixel-flux-1', balance_after: 300 - price });
      expect(ledger.body.next_cursor).toEqual(expect.any(String));
      const api = await http(h.url, 'GET', '/api/v1/credits/ledger', { key: key.api_key });
      const rest = await c.request('GET', `/usage/ledger?cursor=${ledger.body.next_cursor}`);
      expect([...ledger.body.data, ...rest.body.data]).toEqual(api.body.data);
      expectEnvelope(await c.request('GET', '/usage/ledger?limit=0'), 422, 'validation_error');

      const summary = await c.request('GET', '/usage/summary');
      expect(summary.status).toBe(200);
      expect(summary.body.days).toHaveLength(30);
      expect(summary.body.days[29]).toMatchObject({ credits: price, generations: 1, by_model: { 'pixel-flux-1': price } });
      expect(summary.body.models).toEqual([{ model: 'pixel-flux-1', credits: price, generations: 1 }]);
      expect(summary.body.total).toEqual({ credits: price, generations: 1, refunds: 0 });
      expect((await c.request('GET', '/usage/summary?days=7')).body.days).toHaveLength(7);
      expectEnvelope(await c.request('GET', '/usage/summary?days=0'), 422, 'validation_error');

      const csv = await fetch(`${h.url}/dashboard/api/usage/ledger.csv`, { headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="credit-ledger-\d{4}-\d{2}-\d{2}\.csv"$/);
      expect(csv.headers.get('cache-control')).toBe('no-store');
      const lines = (await csv.text()).split('\r\n');
      expect(lines[0]).toBe('id,created_at,kind,amount,held_change,balance_after,generation_id,model,note');
      expect(lines).toHaveLength(5); // header, capture, hold, opening grant, and the final empty string
      expect(lines[1]).toMatch(new RegExp(`^\\d+,\\d{4}-[^,]+Z,capture,0,-${price},${300 - price},${made.body.id},pixel-flux-1,$`));
      expect(lines[3]).toMatch(/,grant,300,0,300,,,opening grant$/);
      expect((await fetch(`${h.url}/dashboard/api/usage/ledger.csv`)).status).toBe(401);
    });

    it("never shows another account's ledger", async () => {
      const alice = await signedUp('usage-alice');
      const bob = await signedUp('usage-bob');
      const key = await newKey(alice.c);
      const made = await alice.c.request('POST', `/keys/${key.key.id}/generate`, { body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' } });
      const bobs = await bob.c.request('GET', '/usage/ledger');
      expect(bobs.body.data).toEqual([expect.objectContaining({ kind: 'grant', amount: 300 })]);
      expect(JSON.stringify((await bob.c.request('GET', '/usage/summary')).body)).not.toContain('pixel-flux-1');
      expect(JSON.stringify(bobs.body)).not.toContain(made.body.id);
    });
  });

  describe('test events', () => {
    it("sends a signed test event to the key's URL or one typed in, and lists it with its attempts", async () => {
      const { c } = await signedUp('test-events');
      const key = await newKey(c, { name: 'hooks', webhook_url: receiverUrl });
      const sent = await c.request('POST', `/keys/${key.key.id}/test-events`, { body: {} });
      expect(sent.status).toBe(202);
      expect(sent.body).toMatchObject({ url: receiverUrl, test: true, event: 'generation.completed' });
      const deadline = Date.now() + 10_000;
      let listed: any;
      for (;;) {
        listed = await c.request('GET', `/keys/${key.key.id}/test-events`);
        if (listed.body.data[0]?.status === 'succeeded' || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(listed.body.data).toEqual([
        expect.objectContaining({ id: sent.body.id, status: 'succeeded', test: true, attempts: [expect.objectContaining({ number: 1, outcome: 'succeeded', status_code: 200 })] }),
      ]);
      const got = received.find((r) => r.headers['x-service-delivery-id'] === sent.body.id);
      expect(got && verify(got.raw, got.headers, key.webhook_secret as string).deliveryId).toBe(sent.body.id);

      const typed = await c.request('POST', `/keys/${key.key.id}/test-events`, { body: { url: `${receiverUrl}?typed=1` } });
      expect(typed.status).toBe(202);
      expect(typed.body.url).toBe(`${receiverUrl}?typed=1`);
      const bad = await c.request('POST', `/keys/${key.key.id}/test-events`, { body: { url: 'not a url' } });
      expectEnvelope(bad, 422, 'validation_error');
      expect(bad.body.error.message).toMatch(/^url: /);
    });

    it('needs a signing secret and a URL (422), and keeps accounts apart (404)', async () => {
      const alice = await signedUp('te-alice');
      const bob = await signedUp('te-bob');
      const bare = await newKey(alice.c);
      expectEnvelope(await alice.c.request('POST', `/keys/${bare.key.id}/test-events`, { body: { url: receiverUrl } }), 422, 'validation_error');
      const hooked = await newKey(alice.c, { name: 'hooked', webhook_url: receiverUrl });
      expectEnvelope(await bob.c.request('POST', `/keys/${hooked.key.id}/test-events`, { body: {} }), 404, 'not_found');
      expectEnvelope(await bob.c.request('GET', `/keys/${hooked.key.id}/test-events`), 404, 'not_found');
      expectEnvelope(await alice.c.request('POST', `/keys/${hooked.key.id}/test-events`, { body: {}, csrf: null }), 403, 'forbidden');
    });
  });

  describe('account', () => {
    it('lists the sessions, ends one or all the others', async () => {
      const { c, email } = await signedUp('sessions');
      const second = client();
      expect((await second.signIn(email, TEST_PASSWORD)).status).toBe(200);
      const third = client();
      expect((await third.signIn(email, TEST_PASSWORD)).status).toBe(200);
      const list = await c.request('GET', '/account/sessions');
      expect(list.status).toBe(200);
      expect(list.body.data).toHaveLength(3);
      expect(list.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      expect(list.body.data[0]).toEqual({
        id: expect.any(String),
        current: expect.any(Boolean),
        created_at: expect.any(String),
        last_seen_at: expect.any(String),
        expires_at: expect.any(String),
        ip: expect.stringMatching(/^203\.0\.113\./),
        user_agent: expect.any(String),
      });
      const mine = list.body.data.find((s: { current: boolean }) => s.current);
      expectEnvelope(await c.request('DELETE', `/account/sessions/${mine.id}`), 409, 'conflict');
      const other = list.body.data.find((s: { current: boolean; ip: string }) => !s.current && s.ip === second.defaultHeaders['x-forwarded-for']);
      expect((await c.request('DELETE', `/account/sessions/${other.id}`)).status).toBe(204);
      expect((await second.request('GET', '/overview')).status).toBe(401);
      expect((await third.request('GET', '/overview')).status).toBe(200);
      // Another user's session id is not found.
      const stranger = await signedUp('stranger');
      const theirs = (await stranger.c.request('GET', '/account/sessions')).body.data[0].id;
      expectEnvelope(await c.request('DELETE', `/account/sessions/${theirs}`), 404, 'not_found');
      expect((await stranger.c.request('GET', '/overview')).status).toBe(200);

      const ended = await c.request('DELETE', '/account/sessions');
      expect(ended.body).toEqual({ ended_sessions: 1 });
      expect((await third.request('GET', '/overview')).status).toBe(401);
      expect((await c.request('GET', '/overview')).status).toBe(200);
      expect((await c.request('GET', '/account/sessions')).body.data).toHaveLength(1);
    });

    it('changes the password with the current one, ends the other sessions, and keeps this one', async () => {
      const { c, email } = await signedUp('password');
      const other = client();
      await other.signIn(email, TEST_PASSWORD);
      const wrong = await c.request('POST', '/account/password', { body: { current_password: 'not it at all', new_password: 'a brand new passphrase' } });
      expectEnvelope(wrong, 422, 'validation_error');
      expect(wrong.body.error.message).toMatch(/^current_password: /);
      const short = await c.request('POST', '/account/password', { body: { current_password: TEST_PASSWORD, new_password: 'short' } });
      expectEnvelope(short, 422, 'validation_error');
      expect(short.body.error.message).toMatch(/^new_password: Use at least 10 characters/);
      expectEnvelope(await c.request('POST', '/account/password', { body: { current_password: TEST_PASSWORD } }), 422, 'validation_error');
      expectEnvelope(await c.request('POST', '/account/password', { body: { current_password: TEST_PASSWORD, new_password: 'x'.repeat(12) }, csrf: null }), 403, 'forbidden');

      const changed = await c.request('POST', '/account/password', { body: { current_password: TEST_PASSWORD, new_password: 'a brand new passphrase' } });
      expect(changed.status).toBe(200);
      expect(changed.body).toEqual({ ended_sessions: 1 });
      expect((await other.request('GET', '/overview')).status).toBe(401);
      expect((await c.request('GET', '/overview')).status).toBe(200);
      expectEnvelope(await client().signIn(email, TEST_PASSWORD), 401, 'unauthorized');
      expect((await client().signIn(email, 'a brand new passphrase')).status).toBe(200);
    });

    it('throttles guesses of the current password like sign-in', async () => {
      const { c } = await signedUp('guess');
      let last: any;
      for (let i = 0; i < 5; i++) {
        last = await c.request('POST', '/account/password', { body: { current_password: `guess number ${i}`, new_password: 'a brand new passphrase' } });
        if (last.status === 429) break;
      }
      expectEnvelope(last, 429, 'rate_limit_exceeded');
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });
});
