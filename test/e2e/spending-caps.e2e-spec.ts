import { BillingService, KeyCapsService } from '@gen/billing';
import { http } from '@gen/testing';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const CAP_MESSAGE = (field: string) => `${field}: must be a whole number of credits from 1 to 2147483647, or null for no cap.`;

/** Spending caps per API key over HTTP (standalone): the race, the 402, and the dashboard's caps route. */
describe('standalone: spending caps per API key', () => {
  let h: StandaloneHarness;
  let address = 0;
  const client = () => new DashboardClient(h.url, { 'x-forwarded-for': `203.0.113.${++address}` });

  beforeAll(async () => {
    h = await startStandaloneHarness({ SIGNUP_CREDITS: '100' }, { models: [testModel({ id: 'penny-1', engine: 'instant', credits: 1 })] });
  });
  afterAll(() => h?.close());

  const expectEnvelope = (res: { status: number; body: any }, status: number, code: string) => {
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
    expect(res.body.error).toEqual({ code, status, message: expect.any(String), request_id: expect.any(String) });
  };
  const submit = (key: string, model = 'penny-1') => http(h.url, 'POST', '/api/v1/generate', { key, body: { model, prompt: 'a coin', type: 'TEXT_TO_IMAGE' } });
  const nextMidnight = () => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString().replace('.000Z', 'Z');
  };

  it('200 concurrent submits against a daily cap of 10 charge exactly 10; the others are 402 spending_cap_reached and hold nothing', async () => {
    const { accountId, key, keyId } = await h.account('pro', 1000);
    await h.running.app.get(BillingService).setPlan(accountId, 'enterprise', { rpm: 100_000, parallel: 50 });
    await h.running.app.get(KeyCapsService).set({ accountId, keyId, perDay: 10 });
    const results = await Promise.all(Array.from({ length: 200 }, () => submit(key)));
    const ok = results.filter((r) => r.status === 200);
    const capped = results.filter((r) => r.status === 402);
    expect(ok).toHaveLength(10);
    expect(capped).toHaveLength(190);
    for (const r of capped) {
      expectEnvelope(r, 402, 'spending_cap_reached');
      expect(r.body.error.message).toBe(
        `Spending cap reached: this API key may spend 10 credits per day (UTC); it has spent 10 today and this generation needs 1. The cap resets at ${nextMidnight()}.`,
      );
    }
    expect(ok.reduce((sum, r) => sum + (r.body.credits_charged as number), 0)).toBe(10);
    // Settled: 10 charged, nothing held, no job for the refused ones.
    for (let i = 0; i < 100 && (await http(h.url, 'GET', '/api/v1/credits', { key })).body.held !== 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body).toMatchObject({ available: 990, held: 0 });
    const jobs = await h.running.databases.generation.query(`SELECT count(*)::int AS n FROM jobs WHERE account_id = $1`, [accountId]);
    expect(jobs[0].n).toBe(10);
  });

  it('a cap lowered below what the key spent today refuses the next submit and refunds nothing; other keys still spend', async () => {
    const { accountId, key, keyId } = await h.account('pro', 100);
    const caps = h.running.app.get(KeyCapsService);
    await caps.set({ accountId, keyId, perDay: 50 });
    for (let i = 0; i < 3; i++) expect((await submit(key, 'pixel-flux-1')).status).toBe(200);
    await caps.set({ accountId, keyId, perDay: 5 });
    const refused = await submit(key);
    expectEnvelope(refused, 402, 'spending_cap_reached');
    expect(refused.body.error.message).toContain('may spend 5 credits per day (UTC); it has spent 12 today');
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body).toMatchObject({ available: 88, held: 0 });
    const other = await h.running.provisioning.createKey(accountId, 'other key');
    expect((await submit(other.key)).status).toBe(200);
  });

  describe('dashboard: PUT /dashboard/api/keys/{id}/caps and the key list', () => {
    async function signedUp() {
      const c = client();
      expect((await c.signUp(testEmail('caps'), TEST_PASSWORD)).status).toBe(201);
      const created = await c.request('POST', '/keys', { body: { name: 'capped' } });
      expect(created.status).toBe(201);
      return { c, keyId: created.body.key.id as string, apiKey: created.body.api_key as string };
    }

    it('sets, shows and removes caps; the list shows the spend and when each period resets', async () => {
      const { c, keyId, apiKey } = await signedUp();
      const listed = await c.request('GET', '/keys');
      expect(listed.body.data[0].caps).toMatchObject({ per_day: null, per_month: null, spent_today: 0, spent_this_month: 0 });
      const set = await c.request('PUT', `/keys/${keyId}/caps`, { body: { per_day: 8, per_month: 100 } });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ key_id: keyId, per_day: 8, per_month: 100, day_resets_at: nextMidnight().replace('Z', '.000Z') });
      for (let i = 0; i < 2; i++) expect((await submit(apiKey, 'pixel-flux-1')).status).toBe(200);
      expectEnvelope(await submit(apiKey, 'pixel-flux-1'), 402, 'spending_cap_reached');
      expect((await c.request('GET', '/keys')).body.data[0].caps).toMatchObject({ per_day: 8, per_month: 100, spent_today: 8, spent_this_month: 8 });
      // Absent keeps, null removes.
      expect((await c.request('PUT', `/keys/${keyId}/caps`, { body: { per_day: null } })).body).toMatchObject({ per_day: null, per_month: 100 });
      expect((await submit(apiKey, 'pixel-flux-1')).status).toBe(200);
    });

    it.each([
      [{ per_day: 0 }, CAP_MESSAGE('per_day')],
      [{ per_day: -3 }, CAP_MESSAGE('per_day')],
      [{ per_month: 2.5 }, CAP_MESSAGE('per_month')],
      [{ per_month: '10' }, CAP_MESSAGE('per_month')],
      [{ per_day: 1e12 }, CAP_MESSAGE('per_day')],
      [{ per_day: 5, cap: 3 }, 'cap: unknown field'],
      [{}, 'Nothing to change: give per_day, per_month or both (null removes a cap).'],
    ])('refuses %j with 422 and changes nothing', async (body, message) => {
      const { c, keyId } = await signedUp();
      expect((await c.request('PUT', `/keys/${keyId}/caps`, { body: { per_day: 7 } })).status).toBe(200);
      const res = await c.request('PUT', `/keys/${keyId}/caps`, { body });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toBe(message);
      expect((await c.request('GET', '/keys')).body.data[0].caps).toMatchObject({ per_day: 7, per_month: null });
    });

    it("another account's key is 404, and so is an unknown one; without a session 401", async () => {
      const owner = await signedUp();
      const stranger = await signedUp();
      expectEnvelope(await stranger.c.request('PUT', `/keys/${owner.keyId}/caps`, { body: { per_day: 1000 } }), 404, 'not_found');
      expectEnvelope(await stranger.c.request('PUT', `/keys/00000000-0000-4000-8000-000000000000/caps`, { body: { per_day: 1 } }), 404, 'not_found');
      expectEnvelope(await client().request('PUT', `/keys/${owner.keyId}/caps`, { body: { per_day: 1 } }), 401, 'unauthorized');
      expect((await owner.c.request('GET', '/keys')).body.data[0].caps).toMatchObject({ per_day: null });
    });
  });
});
