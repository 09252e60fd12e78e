import { http } from '@gen/testing';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

interface JobRow {
  id: string;
  status: string;
  attempts: number;
  lease_owner: string | null;
  error: string | null;
  credits: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Durability with real processes: two generation replicas, kill -9 mid-job. Jobs are held by leases
 * (JOB_LEASE_MS = 2 s, heartbeats every ~0.7 s); a dead worker's jobs are requeued when their lease
 * expires, or failed and refunded once JOB_MAX_ATTEMPTS (2) runs were lost. Engines are slowed
 * down (ENGINE_LATENCY_SCALE = 2: video 6 s, audio 2 s, 3D 3 s) so the kill lands mid-job.
 */
describe('distributed: generation processes killed mid-job', () => {
  let h: DistributedHarness;
  const LEASE_MS = 2_000;
  const TYPES: Record<string, string> = { 'motion-lite-1': 'TEXT_TO_VIDEO', 'tone-weaver-1': 'TEXT_TO_AUDIO', 'mesh-smith-1': 'TEXT_TO_3D' };

  beforeAll(async () => {
    h = await startDistributed({
      replicas: { generation: 2 },
      appEnv: { generation: { ENGINE_LATENCY_SCALE: '2', JOB_LEASE_MS: String(LEASE_MS), JOB_MAX_ATTEMPTS: '2' } },
    });
  });
  afterAll(() => h?.close());

  const jobs = (ids: string[]) =>
    h.query<JobRow>('SELECT id, status, attempts, lease_owner, error, credits FROM generation.jobs WHERE id = ANY($1::uuid[]) ORDER BY seq', [ids]);

  async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}: ${JSON.stringify(value)}`);
      await sleep(100);
    }
  }

  /** Which generation replica (0 or 1) a lease owner (`generation-<host>-<pid>-<rand>`) is. */
  const replicaOf = (owner: string | null) => {
    const pid = Number(/-(\d+)-[0-9a-f]{6}$/.exec(owner ?? '')?.[1]);
    return h.pids('generation').indexOf(pid);
  };

  async function submit(key: string, models: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const model of models) {
      const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model, prompt: `durable ${model}`, type: TYPES[model] } });
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    return ids;
  }

  /** Every job final, and none at all left queued/processing in the service; returns the rows. */
  async function allFinal(ids: string[], timeoutMs: number): Promise<JobRow[]> {
    const rows = await until('every job to finish or fail', () => jobs(ids), (r) => r.every((j) => j.status === 'completed' || j.status === 'failed'), timeoutMs);
    expect(await h.query(`SELECT id FROM generation.jobs WHERE status IN ('queued', 'processing')`)).toEqual([]);
    return rows;
  }

  /** Billing agrees: nothing held, and exactly the completed jobs' prices were taken. */
  async function expectSettled(key: string, accountId: string, initial: number, rows: JobRow[]) {
    const charged = rows.filter((r) => r.status === 'completed').reduce((sum, r) => sum + r.credits, 0);
    const balance = await until(
      'billing to settle every hold',
      async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body,
      (b) => b.held === 0 && b.available === initial - charged,
      20_000,
    );
    expect(balance).toMatchObject({ available: initial - charged, held: 0 });
    const holds = await h.query<{ job_id: string; status: string }>('SELECT job_id, status FROM billing.holds WHERE account_id = $1', [accountId]);
    expect(holds).toHaveLength(rows.length);
    for (const row of rows) {
      expect(holds.find((hold) => hold.job_id === row.id)?.status).toBe(row.status === 'completed' ? 'captured' : 'released');
    }
    const events = await h.query<{ id: string; n: number }>(
      `SELECT payload->'record'->>'id' AS id, count(*)::int AS n FROM generation.outbox WHERE payload->'record'->>'id' = ANY($1) GROUP BY 1`,
      [rows.map((r) => r.id)],
    );
    expect(events.map((e) => e.n)).toEqual(rows.map(() => 1));
  }

  it('kill -9 of one replica: the other takes over its jobs after the lease expires, and every job completes', async () => {
    const a = await h.account('pro', 1000); // 3 parallel tasks
    const b = await h.account('lite', 1000); // 2 parallel tasks
    const ids = [
      ...(await submit(a.key, ['motion-lite-1', 'motion-lite-1', 'motion-lite-1', 'tone-weaver-1'])),
      ...(await submit(b.key, ['tone-weaver-1', 'mesh-smith-1', 'tone-weaver-1'])),
    ];
    const running = await until('five jobs to be running', () => jobs(ids), (rows) => rows.filter((r) => r.status === 'processing').length === 5, 15_000);

    // Kill the replica running the most jobs, mid-job.
    const owners = running.filter((r) => r.status === 'processing').map((r) => replicaOf(r.lease_owner));
    const victim = owners.filter((o) => o === 1).length > owners.filter((o) => o === 0).length ? 1 : 0;
    const orphaned = running.filter((r) => r.status === 'processing' && replicaOf(r.lease_owner) === victim).map((r) => r.id);
    expect(orphaned.length).toBeGreaterThan(0);
    const killedAt = Date.now();
    await h.kill('generation', 'SIGKILL', victim);

    // Bounded: lease (2 s) + a re-run (video 6 s) + the queue behind it, with room for a slow machine.
    const rows = await allFinal(ids, 40_000);
    expect(Date.now() - killedAt).toBeLessThan(40_000);
    expect(rows.map((r) => r.status)).toEqual(ids.map(() => 'completed'));
    for (const row of rows) expect(row.attempts).toBe(orphaned.includes(row.id) ? 2 : 1);

    await expectSettled(a.key, a.accountId, 1000, rows.slice(0, 4));
    await expectSettled(b.key, b.accountId, 1000, rows.slice(4));
    for (const id of ids) {
      const record = (await http(h.url, 'GET', `/api/v1/generations/${id}`, { key: ids.indexOf(id) < 4 ? a.key : b.key })).body;
      expect((await fetch(record.output_url)).status).toBe(200);
    }
    await h.restart('generation', victim);
  });

  it('kill -9 of every replica: nothing moves while they are down; after a restart every job completes', async () => {
    const a = await h.account('pro', 1000);
    const ids = await submit(a.key, ['motion-lite-1', 'mesh-smith-1', 'tone-weaver-1', 'tone-weaver-1']);
    await until('three jobs to be running', () => jobs(ids), (rows) => rows.filter((r) => r.status === 'processing').length === 3, 15_000);
    await Promise.all([h.kill('generation', 'SIGKILL', 0), h.kill('generation', 'SIGKILL', 1)]);

    // Leases expire, but no process is left to notice: the jobs wait, they are not lost.
    await sleep(LEASE_MS + 500);
    const frozen = await jobs(ids);
    expect(frozen.map((r) => r.status).sort()).toEqual(['processing', 'processing', 'processing', 'queued']);

    const restartedAt = Date.now();
    await h.restart('generation', 0);
    const rows = await allFinal(ids, 40_000);
    expect(Date.now() - restartedAt).toBeLessThan(40_000);
    expect(rows.map((r) => r.status)).toEqual(ids.map(() => 'completed'));
    expect(rows.filter((r) => r.attempts === 2)).toHaveLength(3);
    await expectSettled(a.key, a.accountId, 1000, rows);
    await h.restart('generation', 1);
  });

  it('SIGTERM (a rolling restart) hands running jobs back at once, without using up an attempt', async () => {
    const a = await h.account('pro', 1000);
    const [id] = await submit(a.key, ['motion-lite-1']);
    const [running] = await until('the job to run', () => jobs([id]), ([r]) => r.status === 'processing', 15_000);
    const replica = replicaOf(running.lease_owner);
    await h.kill('generation', 'SIGTERM', replica);

    // Taken over by the other replica with attempts still 1: released, not expired (that would make it 2).
    const [taken] = await until('the other replica to take the job', () => jobs([id]), ([r]) => r.status !== 'queued' && replicaOf(r.lease_owner) === 1 - replica, 10_000);
    expect(taken).toMatchObject({ status: 'processing', attempts: 1 });
    const [row] = await allFinal([id], 20_000);
    expect(row).toMatchObject({ status: 'completed', attempts: 1 });
    await expectSettled(a.key, a.accountId, 1000, [row]);
    await h.restart('generation', replica);
  });

  it('a job whose lease expires after its last attempt fails with a full refund', async () => {
    const a = await h.account('pro', 1000);
    const [id] = await submit(a.key, ['motion-lite-1']);
    const first = await until('the job to run', () => jobs([id]), ([r]) => r.status === 'processing', 15_000);
    const firstReplica = replicaOf(first[0].lease_owner);
    await h.kill('generation', 'SIGKILL', firstReplica);

    // Attempt 2, on the other replica once the lease expired: kill that one too, mid-job.
    const second = await until('the job to run again', () => jobs([id]), ([r]) => r.status === 'processing' && r.attempts === 2, 15_000);
    expect(replicaOf(second[0].lease_owner)).toBe(1 - firstReplica);
    await h.kill('generation', 'SIGKILL', 1 - firstReplica);

    await h.restart('generation', 0);
    const [row] = await allFinal([id], 20_000);
    expect(row).toMatchObject({ status: 'failed', attempts: 2 });
    const record = (await http(h.url, 'GET', `/api/v1/generations/${id}`, { key: a.key })).body;
    expect(record).toMatchObject({ status: 'failed', output_url: null, credits_charged: 0 });
    expect(record.error).toMatch(/refunded/);
    expect(record.error).not.toMatch(/generation-|lease|worker|\d+\.\d+\.\d+\.\d+/);
    await expectSettled(a.key, a.accountId, 1000, [row]);
    const failedEvents = await h.query(`SELECT id FROM generation.outbox WHERE pattern = 'generation.failed' AND payload->'record'->>'id' = $1`, [id]);
    expect(failedEvents).toHaveLength(1);
    await h.restart('generation', 1);
  });
});
