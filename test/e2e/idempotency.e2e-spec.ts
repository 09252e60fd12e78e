import { randomUUID } from 'node:crypto';
import { BillingService } from '@gen/billing';
import { GatewayJanitorService } from '@gen/gateway';
import { http, HttpResult } from '@gen/testing';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** Idempotency-Key on POST /api/v1/generate, over HTTP in standalone mode. */
describe('standalone: Idempotency-Key on POST /generate', () => {
  let h: StandaloneHarness;

  beforeAll(async () => {
    h = await startStandaloneHarness();
  });
  afterAll(() => h?.close());

  const image = { model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' };
  const generate = (key: string, body: unknown, idempotencyKey?: string) =>
    http(h.url, 'POST', '/api/v1/generate', { key, body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });
  const jobs = async (accountId: string) =>
    (await h.running.databases.generation.query(`SELECT id FROM jobs WHERE account_id = $1`, [accountId])) as Array<{ id: string }>;
  const holds = async (accountId: string) =>
    (await h.running.databases.billing.query(`SELECT job_id, amount, status FROM holds WHERE account_id = $1`, [accountId])) as Array<{
      job_id: string;
      amount: number;
      status: string;
    }>;
  const settled = async (accountId: string) => {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      const rows = await h.running.databases.billing.query(`SELECT available::int, held::int FROM accounts WHERE account_id = $1`, [
        accountId,
      ]);
      if (rows[0].held === 0) return rows[0] as { available: number; held: number };
    }
    throw new Error('credits still held after 10 s');
  };
  const expect422 = (res: HttpResult, text: RegExp) => {
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_error', status: 422 });
    expect(res.body.error.message).toMatch(text);
  };

  it('replays the original response (status, body, Location) and creates and charges nothing new', async () => {
    const { key, accountId } = await h.account('pro', 100);
    const idempotencyKey = randomUUID();
    const first = await generate(key, image, idempotencyKey);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await generate(key, image, idempotencyKey);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await jobs(accountId)).toEqual([{ id: first.body.id }]);
    expect(await settled(accountId)).toEqual({ available: 96, held: 0 });
    expect(await holds(accountId)).toEqual([{ job_id: first.body.id, amount: 4, status: 'captured' }]);
    // Without the header, the same body is a new generation.
    expect((await generate(key, image)).body.id).not.toBe(first.body.id);
  });

  it('replays a 202 as it was first answered, even after the job has moved on', async () => {
    const { key, accountId } = await h.account('pro', 100);
    const idempotencyKey = randomUUID();
    const audio = { model: 'tone-weaver-1', prompt: 'rain', type: 'TEXT_TO_AUDIO' };
    const first = await generate(key, audio, idempotencyKey);
    expect(first.status).toBe(202);
    await settled(accountId);
    const again = await generate(key, audio, idempotencyKey);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(`/api/v1/generations/${first.body.id}`);
    expect(await jobs(accountId)).toHaveLength(1);
  });

  it('the same key with a different body is 422 and creates nothing', async () => {
    const { key, accountId } = await h.account('pro', 100);
    const idempotencyKey = randomUUID();
    expect((await generate(key, image, idempotencyKey)).status).toBe(200);
    const changed = await generate(key, { ...image, prompt: 'a different prompt' }, idempotencyKey);
    expect422(changed, /Idempotency-Key.*different request body/);
    expect(await jobs(accountId)).toHaveLength(1);
  });

  it('keys belong to an account: another account with the same key gets its own job', async () => {
    const a = await h.account('pro', 100);
    const b = await h.account('pro', 100);
    const idempotencyKey = randomUUID();
    const first = await generate(a.key, image, idempotencyKey);
    const second = await generate(b.key, image, idempotencyKey);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('20 concurrent duplicates create exactly one job and one charge', async () => {
    const { key, accountId } = await h.account('pro', 100);
    const idempotencyKey = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => generate(key, image, idempotencyKey)));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    const [jobId] = [...ids];
    expect(await jobs(accountId)).toEqual([{ id: jobId }]);
    expect(await settled(accountId)).toEqual({ available: 96, held: 0 });
    expect(await holds(accountId)).toEqual([{ job_id: jobId, amount: 4, status: 'captured' }]);
    const captures = await h.running.databases.billing.query(`SELECT count(*)::int AS n FROM ledger WHERE account_id = $1 AND kind = 'capture'`, [
      accountId,
    ]);
    expect(captures).toEqual([{ n: 1 }]);
  });

  it('a request that failed without creating a job is not kept: after a top-up the same key succeeds', async () => {
    const { key, accountId } = await h.account('pro', 2);
    const idempotencyKey = randomUUID();
    const refused = await generate(key, image, idempotencyKey);
    expect(refused.status).toBe(402);
    await h.running.app.get(BillingService).adjust(accountId, 100, 'top-up');
    const retried = await generate(key, image, idempotencyKey);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await jobs(accountId)).toEqual([{ id: retried.body.id }]);
  });

  it('refuses a malformed Idempotency-Key with 422 before doing anything', async () => {
    const { key, accountId } = await h.account('pro', 100);
    expect422(await generate(key, image, 'x'.repeat(256)), /Idempotency-Key/);
    expect422(await generate(key, image, ''), /Idempotency-Key/);
    expect(await jobs(accountId)).toEqual([]);
  });

  it('keys last 24 hours: an expired key starts a new generation, and the janitor removes expired records', async () => {
    const { key, accountId } = await h.account('pro', 100);
    const idempotencyKey = randomUUID();
    const first = await generate(key, image, idempotencyKey);
    await h.running.databases.auth.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [
      accountId,
    ]);
    const later = await generate(key, image, idempotencyKey);
    expect(later.status).toBe(200);
    expect(later.body.id).not.toBe(first.body.id);
    expect(later.headers.get('idempotent-replayed')).toBeNull();

    await h.running.databases.auth.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [
      accountId,
    ]);
    const swept = await h.running.app.get(GatewayJanitorService).sweep();
    expect(swept.idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect(await h.running.databases.auth.query(`SELECT key FROM idempotency_keys WHERE account_id = $1`, [accountId])).toEqual([]);
  });
});
