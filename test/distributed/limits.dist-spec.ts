import { http, HttpResult } from '@gen/testing';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

/**
 * Limits with replicas: two gateway processes share the rate-limit counters, two generation
 * processes share the parallel slots and the queue cap (all through PostgreSQL).
 */
describe('distributed: limits hold across two gateways and two generation replicas', () => {
  let h: DistributedHarness;

  beforeAll(async () => {
    h = await startDistributed({
      replicas: { gateway: 2, generation: 2 },
      // tone-weaver-1 simulates 1000 ms: x1.5 keeps jobs running long enough to observe them.
      // Two workers per process: a third concurrent job of one account needs both replicas.
      appEnv: { generation: { ENGINE_LATENCY_SCALE: '1.5', WORKER_CONCURRENCY: '2', QUEUE_CAP_PER_SLOT: '2' } },
    });
  });
  afterAll(() => h?.close());

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** Sets an account's limits before any gateway has read (and cached) them. */
  const limitAccount = (accountId: string, rpm: number, parallel: number) =>
    h.query(`UPDATE billing.accounts SET plan = 'enterprise', requests_per_minute = $2, parallel_tasks = $3 WHERE account_id = $1`, [
      accountId,
      rpm,
      parallel,
    ]);
  const gateway = (i: number) => h.urls[i % h.urls.length];
  const audio = (i: number, key: string, prompt: string) =>
    http(gateway(i), 'POST', '/api/v1/generate', { key, body: { model: 'tone-weaver-1', prompt, type: 'TEXT_TO_AUDIO' } });
  const unfinished = async (accountId: string) =>
    (
      await h.query<{ n: number }>(`SELECT count(*)::int AS n FROM generation.jobs WHERE account_id = $1 AND status IN ('queued', 'processing')`, [
        accountId,
      ])
    )[0].n;
  const drained = async (accountId: string, timeoutMs = 60_000) => {
    for (const deadline = Date.now() + timeoutMs; (await unfinished(accountId)) > 0; await sleep(100)) {
      if (Date.now() > deadline) throw new Error(`jobs of ${accountId} still unfinished after ${timeoutMs} ms`);
    }
  };
  const expect429 = (res: HttpResult) => {
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  };

  it('an account limited to N rpm gets exactly N of 10 x N concurrent requests spread over both gateways', async () => {
    expect(h.urls).toHaveLength(2);
    const N = 20;
    const { key, accountId } = await h.account('pro', 100);
    await limitAccount(accountId, N, 3);
    // Windows are whole minutes on the database clock: run well inside one.
    const [{ ms_left }] = await h.query<{ ms_left: string }>(
      `SELECT 60000 - (extract(epoch FROM clock_timestamp()) * 1000)::bigint % 60000 AS ms_left`,
    );
    if (Number(ms_left) < 20_000) await sleep(Number(ms_left) + 200);

    const results = await Promise.all(Array.from({ length: 10 * N }, (_, i) => http(gateway(i), 'GET', '/api/v1/models', { key })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(N);
    for (const r of results.filter((res) => res.status !== 200)) {
      expect429(r);
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
    }
    // Each admitted request saw its own count: remaining N-1 ... 0, once each.
    expect(ok.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: N }, (_, i) => i),
    );
    for (const r of results) expect(r.headers.get('ratelimit-limit')).toBe(String(N));
    // Both gateways answered some of each.
    for (const i of [0, 1]) expect(results.filter((_, j) => j % 2 === i).some((r) => r.status === 200 || r.status === 429)).toBe(true);
  });

  it('20 concurrent duplicates with one Idempotency-Key, spread over both gateways, make one job and one hold', async () => {
    const { key, accountId } = await h.account('pro', 1000);
    const headers = { 'idempotency-key': `dist-${accountId}` };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        http(gateway(i), 'POST', '/api/v1/generate', { key, headers, body: { model: 'tone-weaver-1', prompt: 'once', type: 'TEXT_TO_AUDIO' } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 202));
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    const jobs = await h.query<{ id: string }>(`SELECT id FROM generation.jobs WHERE account_id = $1`, [accountId]);
    expect(jobs).toEqual([{ id: results[0].body.id }]);
    const holds = await h.query<{ job_id: string }>(`SELECT job_id FROM billing.holds WHERE account_id = $1`, [accountId]);
    expect(holds).toEqual([{ job_id: results[0].body.id }]);
    await drained(accountId);
  });

  it('never runs more than the parallel-task limit at once, with two generation replicas claiming', async () => {
    const a = await h.account('pro', 10_000);
    const b = await h.account('pro', 10_000);
    await limitAccount(a.accountId, 1000, 3);
    await limitAccount(b.accountId, 1000, 1);

    // As many as their queues take (QUEUE_CAP_PER_SLOT=2): 3 + 6 and 1 + 2.
    const submissions = await Promise.all([
      ...Array.from({ length: 9 }, (_, i) => audio(i, a.key, `a ${i}`)),
      ...Array.from({ length: 3 }, (_, i) => audio(i, b.key, `b ${i}`)),
    ]);
    expect(submissions.map((r) => r.status)).toEqual(submissions.map(() => 202));

    const peak = new Map<string, number>();
    const owners = new Set<string>();
    const deadline = Date.now() + 60_000;
    while ((await unfinished(a.accountId)) + (await unfinished(b.accountId)) > 0 && Date.now() < deadline) {
      const running = await h.query<{ account_id: string; n: number; owners: string[] }>(
        `SELECT account_id, count(*)::int AS n, array_agg(DISTINCT lease_owner) AS owners FROM generation.jobs
         WHERE account_id = ANY($1::uuid[]) AND status = 'processing' GROUP BY account_id`,
        [[a.accountId, b.accountId]],
      );
      for (const row of running) {
        peak.set(row.account_id, Math.max(peak.get(row.account_id) ?? 0, row.n));
        if (row.account_id === a.accountId) row.owners.forEach((o) => owners.add(o));
      }
      await sleep(15);
    }
    // Limit 3 reached but never passed; a process runs at most 2 jobs, so 3 at once took both replicas.
    expect(peak.get(a.accountId)).toBe(3);
    expect(owners.size).toBe(2);
    expect(peak.get(b.accountId)).toBe(1);
    const statuses = await h.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM generation.jobs WHERE account_id = ANY($1::uuid[]) GROUP BY status`,
      [[a.accountId, b.accountId]],
    );
    expect(statuses).toEqual([{ status: 'completed', n: 12 }]);
  });

  it('the queue cap holds across replicas: of a concurrent burst over both gateways, exactly slots + cap are queued', async () => {
    const { key, accountId } = await h.account('pro', 10_000);
    await limitAccount(accountId, 1000, 1);
    // One slot and QUEUE_CAP_PER_SLOT=2: one running plus two waiting.
    const results = await Promise.all(Array.from({ length: 15 }, (_, i) => audio(i, key, `burst ${i}`)));
    expect(results.filter((r) => r.status === 202)).toHaveLength(3);
    const refused = results.filter((r) => r.status !== 202);
    expect(refused).toHaveLength(12);
    for (const r of refused) {
      expect429(r);
      expect(r.body.error.message).toMatch(/parallel-task limit/i);
    }
    expect(await unfinished(accountId)).toBe(3);
    // Refused submissions kept no credits: only the three queued jobs hold theirs.
    const [balance] = await h.query<{ available: number; held: number }>(
      `SELECT available::int, held::int FROM billing.accounts WHERE account_id = $1`,
      [accountId],
    );
    expect(balance).toEqual({ available: 10_000 - 30, held: 30 });
    await drained(accountId);
  });
});
