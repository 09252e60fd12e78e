import { BillingService } from '@gen/billing';
import { ApiKeysService } from '@gen/gateway';
import { http, HttpResult } from '@gen/testing';
import { GateEngine } from '../support/gate-engine';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** Rate limits (per account, per minute) and the parallel-task queue cap, over HTTP in standalone mode. */
describe('standalone: request rate limit and parallel-task queue cap', () => {
  let h: StandaloneHarness;
  const gate = new GateEngine('audio');

  beforeAll(async () => {
    h = await startStandaloneHarness({}, { engines: { audio: gate } });
  });
  afterAll(async () => {
    gate.open();
    await h?.close();
  });

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** Windows are whole minutes (database clock, same machine): start a counting test well inside one. */
  const inFreshWindow = async (needMs = 10_000) => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < needMs) await sleep(left + 100);
  };
  const headerInt = (res: HttpResult, name: string) => {
    const value = res.headers.get(name);
    expect(value).toMatch(/^\d+$/);
    return Number(value);
  };
  const expectRateHeaders = (res: HttpResult, limit: number, remaining?: number) => {
    expect(headerInt(res, 'ratelimit-limit')).toBe(limit);
    if (remaining !== undefined) expect(headerInt(res, 'ratelimit-remaining')).toBe(remaining);
    const reset = headerInt(res, 'ratelimit-reset');
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
  };
  const expect429 = (res: HttpResult) => {
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      error: { code: 'rate_limit_exceeded', status: 429, message: expect.any(String), request_id: expect.any(String) },
    });
    const retryAfter = headerInt(res, 'retry-after');
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    return retryAfter;
  };
  const setPlan = (accountId: string, plan: 'pro' | 'enterprise', limits: { rpm?: number; parallel?: number }) =>
    h.running.app.get(BillingService).setPlan(accountId, plan, limits);
  const jobCount = async (accountId: string) =>
    Number((await h.running.databases.generation.query(`SELECT count(*) AS n FROM jobs WHERE account_id = $1`, [accountId]))[0].n);
  const balance = async (accountId: string) =>
    (await h.running.databases.billing.query(`SELECT available::int, held::int FROM accounts WHERE account_id = $1`, [accountId]))[0] as {
      available: number;
      held: number;
    };

  describe('rate limit headers', () => {
    it('every /api/v1 response carries RateLimit-Limit (the plan rpm), RateLimit-Remaining and RateLimit-Reset', async () => {
      await inFreshWindow();
      const { key } = await h.account('pro', 100);
      const first = await http(h.url, 'GET', '/api/v1/models', { key });
      expect(first.status).toBe(200);
      expectRateHeaders(first, 60, 59);
      const second = await http(h.url, 'GET', '/api/v1/credits', { key });
      expectRateHeaders(second, 60, 58);
    });

    it('errors after authentication carry them too (422, 402, 403, 404), and count', async () => {
      await inFreshWindow();
      const poor = await h.account('pro', 1);
      const readOnly = await h.running.app.get(ApiKeysService).create(poor.accountId, 'read only', ['read']);
      const invalid = await http(h.url, 'POST', '/api/v1/generate', { key: poor.key, body: { model: 'pixel-flux-1' } });
      expect(invalid.status).toBe(422);
      expectRateHeaders(invalid, 60, 59);
      const broke = await http(h.url, 'POST', '/api/v1/generate', {
        key: poor.key,
        body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' },
      });
      expect(broke.status).toBe(402);
      expectRateHeaders(broke, 60, 58);
      const forbidden = await http(h.url, 'POST', '/api/v1/generate', {
        key: readOnly.key,
        body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' },
      });
      expect(forbidden.status).toBe(403);
      expectRateHeaders(forbidden, 60, 57);
      const missing = await http(h.url, 'GET', '/api/v1/generations/00000000-0000-4000-8000-000000000000', { key: poor.key });
      expect(missing.status).toBe(404);
      expectRateHeaders(missing, 60, 56);
    });

    it('a request without a valid key (401) has no account, so no RateLimit headers', async () => {
      const res = await http(h.url, 'GET', '/api/v1/models', { key: 'gsk_live_' + 'B'.repeat(32) });
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    });

    it("follows the account's plan: a pro account set to 200 rpm gets 200", async () => {
      const { key, accountId } = await h.account('pro', 100);
      await setPlan(accountId, 'pro', { rpm: 200, parallel: 3 });
      expectRateHeaders(await http(h.url, 'GET', '/api/v1/models', { key }), 200);
    });
  });

  describe('over the limit', () => {
    it('429 rate_limit_exceeded with Retry-After once the plan rpm is used, for all keys of the account together', async () => {
      await inFreshWindow(15_000);
      const account = await h.account('free', 100);
      const second = await h.running.app.get(ApiKeysService).create(account.accountId, 'second key');
      const other = await h.account('free', 100);
      for (let i = 0; i < 10; i++) {
        const res = await http(h.url, 'GET', '/api/v1/models', { key: i % 2 === 0 ? account.key : second.key });
        expect(res.status).toBe(200);
        expectRateHeaders(res, 10, 9 - i);
      }
      for (const key of [account.key, second.key]) {
        const refused = await http(h.url, 'GET', '/api/v1/models', { key });
        const retryAfter = expect429(refused);
        expectRateHeaders(refused, 10, 0);
        expect(retryAfter).toBe(headerInt(refused, 'ratelimit-reset'));
        expect(refused.body.error.message).toMatch(/10 requests per minute/);
      }
      // Refused submissions create and hold nothing.
      const before = await balance(account.accountId);
      expect429(await http(h.url, 'POST', '/api/v1/generate', {
        key: account.key,
        body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' },
      }));
      expect(await jobCount(account.accountId)).toBe(0);
      expect(await balance(account.accountId)).toEqual(before);
      // Another account has its own budget.
      expect((await http(h.url, 'GET', '/api/v1/models', { key: other.key })).status).toBe(200);
    });
  });

  describe('parallel-task queue cap', () => {
    const audio = (key: string, prompt: string) =>
      http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'tone-weaver-1', prompt, type: 'TEXT_TO_AUDIO' } });

    it('queues 10 x slots beyond the running ones, refuses the next with 429 naming the parallel-task limit, and runs the queue in order', async () => {
      const { key, accountId } = await h.account('free', 1000);
      await setPlan(accountId, 'enterprise', { rpm: 1000, parallel: 1 });
      gate.close();
      const startedBefore = gate.started.length;

      const accepted: string[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await audio(key, `job ${i}`);
        expect(res.status).toBe(202);
        accepted.push(res.body.id);
      }
      const refused = await audio(key, 'one too many');
      expect429(refused);
      expectRateHeaders(refused, 1000);
      expect(refused.body.error.message).toMatch(/parallel-task limit/i);
      expect(refused.body.error.message).toMatch(/at most 1 generation at once and queues at most 10 more/);

      expect(await jobCount(accountId)).toBe(11);
      // The refused job's hold was released: 11 holds of 10 credits remain.
      expect(await balance(accountId)).toEqual({ available: 1000 - 110, held: 110 });
      const holds = await h.running.databases.billing.query(
        `SELECT status, count(*)::int AS n FROM holds WHERE account_id = $1 GROUP BY status ORDER BY status`,
        [accountId],
      );
      expect(holds).toEqual([
        { status: 'held', n: 11 },
        { status: 'released', n: 1 },
      ]);

      gate.open();
      const unfinished = async () =>
        (
          await h.running.databases.generation.query(
            `SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND status IN ('queued', 'processing')`,
            [accountId],
          )
        )[0].n as number;
      for (const deadline = Date.now() + 20_000; (await unfinished()) > 0 && Date.now() < deadline; ) await sleep(50);
      // One slot: the jobs started strictly in submission order.
      expect(gate.started.slice(startedBefore)).toEqual(accepted);
      const records = await Promise.all(accepted.map(async (id) => (await http(h.url, 'GET', `/api/v1/generations/${id}`, { key })).body));
      expect(records.map((r) => r.status)).toEqual(accepted.map(() => 'completed'));

      // With room in the queue again, submissions are accepted.
      gate.close();
      expect((await audio(key, 'after the queue drained')).status).toBe(202);
      gate.open();
    });

    it('the cap scales with the slots: 3 slots queue 30 more', async () => {
      const { key, accountId } = await h.account('free', 1000);
      await setPlan(accountId, 'enterprise', { rpm: 1000, parallel: 3 });
      gate.close();
      const results = await Promise.all(Array.from({ length: 36 }, (_, i) => audio(key, `burst ${i}`)));
      expect(results.filter((r) => r.status === 202)).toHaveLength(33);
      for (const r of results.filter((res) => res.status !== 202)) expect429(r);
      expect(await jobCount(accountId)).toBe(33);
      expect(await balance(accountId)).toEqual({ available: 1000 - 330, held: 330 });
      gate.open();
    });
  });
});
