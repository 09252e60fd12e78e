import { randomUUID } from 'node:crypto';
import { finishedEvent } from './job-events';
import type { JobEntity } from './job.entity';
import { jobStore, JobStore } from './test/job-store';
import { NewJob } from './job-admission.repository';
import { claimOrder, claimReplicas } from './test/claim-log';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Integration (real PostgreSQL): the admission that also claims (function admit_job), the submit
 * path of a process with a free worker. It keeps every guarantee of the separate claim: never more
 * running than the account's slots, oldest first, the queue cap exact, under any mix of submits
 * and workers' claims on several replicas.
 */
describe('JobAdmissionWriter.admit with a claim (PostgreSQL)', () => {
  const kit = claimReplicas('admit_claim');
  const { replicas } = kit;
  const LEASE = 30_000;

  const newJob = (accountId: string, parallelLimit: number, prompt = 'a bell'): NewJob => ({
    id: randomUUID(),
    accountId,
    apiKeyId: randomUUID(),
    modelId: 'pixel-flux-1',
    type: 'TEXT_TO_IMAGE',
    prompt,
    credits: 4,
    parallelLimit,
    webhookUrl: null,
    cancelAfterSeconds: 60,
  });
  const offer = (owner: string, max = 1) => ({ owner, leaseMs: LEASE, max });
  const complete = (r: JobStore, jobId: string, owner: string) =>
    r.finish(jobId, owner, { status: 'completed', outputs: [{ key: `ab/${jobId.replace(/-/g, '')}.png`, content_type: 'image/png', bytes: 1 }], keepSeconds: 3600 }, (j) =>
      finishedEvent(j, 'http://cdn.test'),
    );
  const claimedBy = (outcome: Awaited<ReturnType<JobStore['admit']>>): JobEntity[] => (outcome.kind === 'queued' ? outcome.claimed : []);

  it('queues and claims in one statement while the account has a free slot, oldest first, and only queues once it has none', async () => {
    const accountId = randomUUID();
    const [a, b, c, d] = [newJob(accountId, 2), newJob(accountId, 2), newJob(accountId, 2), newJob(accountId, 2)];
    const first = await kit.repo.admit(a, 10, offer('w'));
    expect(claimedBy(first)).toHaveLength(1);
    expect(claimedBy(first)[0]).toMatchObject({ id: a.id, status: 'processing', attempts: 1, leaseOwner: 'w', accountId, prompt: a.prompt, parallelLimit: 2 });
    expect(claimedBy(first)[0].deadlineAt).toBeInstanceOf(Date);
    expect(claimedBy(first)[0]).toEqual(await kit.repo.findById(a.id));
    expect(claimedBy(await kit.repo.admit(b, 10, offer('w'))).map((j) => j.id)).toEqual([b.id]);
    // Both slots taken: queued, nothing claimed.
    expect(await kit.repo.admit(c, 10, offer('w'))).toEqual({ kind: 'queued', claimed: [] });
    expect((await kit.repo.findById(c.id))?.status).toBe('queued');
    // A slot frees: the next admission claims the oldest queued job, not its own.
    expect(await complete(kit.repo, a.id, 'w')).not.toBeNull();
    expect(claimedBy(await kit.repo.admit(d, 10, offer('w2'))).map((j) => j.id)).toEqual([c.id]);
    expect((await kit.repo.findById(d.id))?.status).toBe('queued');
  });

  it('claims nothing without an offer, for a repeated job id, or when the queue is full', async () => {
    const accountId = randomUUID();
    const job = newJob(accountId, 1);
    expect(await kit.repo.admit(job, 0)).toEqual({ kind: 'queued', claimed: [] });
    expect(await kit.repo.admit(job, 0, offer('w'))).toEqual({ kind: 'exists' });
    expect(await kit.repo.admit(newJob(accountId, 1), 0, offer('w'))).toMatchObject({ kind: 'queue-full', queued: 1, processing: 0 });
    expect((await kit.repo.findById(job.id))?.status).toBe('queued');
    expect(await kit.repo.admit(newJob(accountId, 1), 5, { owner: 'w', leaseMs: LEASE, max: 0 })).toEqual({ kind: 'queued', claimed: [] });
  });

  it('keeps the queue cap exact with 60 concurrent claiming submits on two replicas', async () => {
    const accountId = randomUUID();
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, (_, i) => jobStore(replicas[i % 2]).admit(newJob(accountId, 2), 4, offer(`w${i % 2}`))),
    );
    expect(outcomes.filter((o) => o.kind === 'queued')).toHaveLength(6);
    expect(outcomes.filter((o) => o.kind === 'queue-full')).toHaveLength(54);
    expect(outcomes.flatMap(claimedBy)).toHaveLength(2);
    const counts = (await replicas[0].query(`SELECT status, count(*)::int AS n FROM jobs WHERE account_id = $1 GROUP BY status ORDER BY status`, [
      accountId,
    ])) as Array<{ status: string; n: number }>;
    expect(counts).toEqual([
      { status: 'processing', n: 2 },
      { status: 'queued', n: 4 },
    ]);
  });

  describe('admissions that arrive together (one admit_batch statement, one commit)', () => {
    /** The transaction that last wrote each job: jobs admitted (and claimed) by one batch share it. */
    const writers = async (jobIds: string[]): Promise<Set<string>> =>
      new Set(((await replicas[0].query(`SELECT xmin::text AS x FROM jobs WHERE id = ANY($1::uuid[])`, [jobIds])) as Array<{ x: string }>).map((r) => r.x));

    it('admits the submits of several accounts made at once in one transaction, each against its own queue cap', async () => {
      const repo = jobStore(replicas[0]);
      const [small, large] = [randomUUID(), randomUUID()];
      const jobs = [...Array.from({ length: 8 }, () => newJob(small, 1)), ...Array.from({ length: 8 }, () => newJob(large, 4))];
      const outcomes = await Promise.all(jobs.map((job) => repo.admit(job, 2)));
      // small: 1 slot + 2 waiting; large: 4 slots + 2 waiting. Nothing claimed without offers.
      expect(outcomes.slice(0, 8).map((o) => o.kind)).toEqual(['queued', 'queued', 'queued', ...Array(5).fill('queue-full')]);
      expect(outcomes.slice(8).map((o) => o.kind)).toEqual([...Array(6).fill('queued'), 'queue-full', 'queue-full']);
      expect(outcomes[3]).toMatchObject({ kind: 'queue-full', queued: 3, processing: 0 });
      expect(outcomes[3].kind === 'queue-full' && outcomes[3].retryAfterSeconds).toBeGreaterThanOrEqual(1);
      const admitted = jobs.filter((_, i) => outcomes[i].kind === 'queued').map((j) => j.id);
      expect(await writers(admitted)).toHaveProperty('size', 1);
      const stored = (await replicas[0].query(`SELECT count(*)::int AS n FROM jobs WHERE account_id = ANY($1::uuid[])`, [[small, large]])) as [{ n: number }];
      expect(stored[0].n).toBe(9);
    });

    it('claims for the submits that came with a free worker, each its own job first, the rest only queued', async () => {
      const repo = jobStore(replicas[0]);
      const accountId = randomUUID();
      const jobs = Array.from({ length: 4 }, () => newJob(accountId, 2));
      const outcomes = await Promise.all(jobs.map((job, i) => repo.admit(job, 10, i === 1 ? undefined : offer('w'))));
      expect(outcomes.map((o) => o.kind)).toEqual(['queued', 'queued', 'queued', 'queued']);
      // Two slots, three offers: the account's two oldest jobs are claimed, each given to its own submit
      // (the second came without an offer; the process's workers are shared, and it need not look again).
      expect(outcomes.map((o) => claimedBy(o).map((j) => j.id))).toEqual([[jobs[0].id], [jobs[1].id], [], []]);
      expect(outcomes.flatMap(claimedBy).every((j) => j.status === 'processing' && j.leaseOwner === 'w')).toBe(true);
      expect(await writers(jobs.map((j) => j.id))).toHaveProperty('size', 1);
    });

    it('answers a job id submitted twice in one batch once as queued and once as existing', async () => {
      const repo = jobStore(replicas[0]);
      const job = newJob(randomUUID(), 1);
      const outcomes = await Promise.all([repo.admit(job, 5), repo.admit({ ...job }, 5)]);
      expect(outcomes).toEqual([{ kind: 'queued', claimed: [] }, { kind: 'exists' }]);
    });

    it('fails only the submit whose value PostgreSQL refuses; the others of its batch are admitted', async () => {
      const repo = jobStore(replicas[0]);
      const accountId = randomUUID();
      const good = [newJob(accountId, 2), newJob(accountId, 2)];
      const bad = { ...newJob(accountId, 2), credits: -1 }; // jobs_credits_check
      const outcomes = await Promise.allSettled([repo.admit(good[0], 5), repo.admit(bad, 5), repo.admit(good[1], 5)]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(((outcomes[1] as PromiseRejectedResult).reason as { code?: string }).code).toBe('23514');
      expect((await repo.findById(good[1].id))?.status).toBe('queued');
      expect(await repo.findById(bad.id)).toBeNull();
    });
  });

  it("never exceeds an account's slots and starts its jobs in order, with submits claiming and workers claiming at once on three replicas", async () => {
    const limits = new Map<string, number>([
      [randomUUID(), 1],
      [randomUUID(), 3],
      [randomUUID(), 5],
    ]);
    const accountIds = [...limits.keys()];
    const perAccount = 30;
    const inFlight = new Map<string, number>(accountIds.map((a) => [a, 0]));
    const maxInFlight = new Map<string, number>(accountIds.map((a) => [a, 0]));
    const violations: string[] = [];
    const submitted = new Map<string, string[]>();
    const finished = new Set<string>();
    const runs: Promise<void>[] = [];

    /** "Runs" jobs a claim (either kind) gave to `owner` on replica `r`, then completes them. */
    const run = (r: JobStore, owner: string, jobs: JobEntity[]) => {
      for (const job of jobs) {
        const running = (inFlight.get(job.accountId) as number) + 1;
        inFlight.set(job.accountId, running);
        maxInFlight.set(job.accountId, Math.max(maxInFlight.get(job.accountId) as number, running));
        if (running > (limits.get(job.accountId) as number)) violations.push(`${job.accountId}: ${running} running`);
        runs.push(
          (async () => {
            await sleep(20 + Math.random() * 30);
            inFlight.set(job.accountId, (inFlight.get(job.accountId) as number) - 1);
            expect(await complete(r, job.id, owner)).not.toBeNull();
            finished.add(job.id);
          })(),
        );
      }
    };

    // Submits: each account's jobs in bursts of concurrent submits on all replicas, each offering a
    // claim (submission order: seq). Workers: two per replica, claiming in a loop.
    const submitters = accountIds.map(async (accountId, a) => {
      for (let burst = 0; burst < perAccount / 6; burst++) {
        await Promise.all(
          Array.from({ length: 6 }, async (_, i) => {
            const r = jobStore(replicas[i % replicas.length]);
            const owner = `submit-${a}-${i % replicas.length}`;
            const outcome = await r.admit(newJob(accountId, limits.get(accountId) as number, `job ${burst}.${i}`), 1_000, offer(owner, 1 + (i % 2)));
            expect(outcome.kind).toBe('queued');
            run(r, owner, claimedBy(outcome));
          }),
        );
        await sleep(Math.random() * 10);
      }
    });
    let submitting = true;
    const workers = Array.from({ length: 6 }, async (_, w) => {
      const r = jobStore(replicas[w % replicas.length]);
      const owner = `worker-${w}`;
      while (submitting || finished.size < limits.size * perAccount) {
        let claimedAny = false;
        // (Other tests' accounts still have queued jobs: not this test's.)
        for (const accountId of (await r.accountsWithQueuedJobs(100)).filter((a) => limits.has(a))) {
          const jobs = await r.claim(accountId, owner, LEASE, 2);
          if (jobs.length > 0) claimedAny = true;
          run(r, owner, jobs);
        }
        if (!claimedAny) await sleep(3);
      }
    });
    let observing = true;
    const observedMax = new Map<string, number>(accountIds.map((a) => [a, 0]));
    const observer = (async () => {
      while (observing) {
        const rows = (await replicas[2].query(
          `SELECT account_id, count(*) FILTER (WHERE status = 'processing')::int AS running,
                  coalesce(max(seq) FILTER (WHERE status <> 'queued') < min(seq) FILTER (WHERE status = 'queued'), true) AS fifo
           FROM jobs WHERE account_id = ANY($1::uuid[]) GROUP BY account_id`,
          [accountIds],
        )) as Array<{ account_id: string; running: number; fifo: boolean }>;
        for (const row of rows) {
          observedMax.set(row.account_id, Math.max(observedMax.get(row.account_id) as number, row.running));
          if (row.running > (limits.get(row.account_id) as number)) violations.push(`db: ${row.account_id} ${row.running} running`);
          if (!row.fifo) violations.push(`db: ${row.account_id} started a job before an older queued one`);
        }
      }
    })();

    await Promise.all(submitters);
    submitting = false;
    await Promise.all(workers);
    await Promise.all(runs);
    observing = false;
    await observer;
    for (const accountId of accountIds) {
      const bySeq = (await replicas[0].query(`SELECT id FROM jobs WHERE account_id = $1 ORDER BY seq`, [accountId])) as Array<{ id: string }>;
      submitted.set(accountId, bySeq.map((row) => row.id));
    }

    expect(violations).toEqual([]);
    for (const [accountId, limit] of limits) {
      expect(maxInFlight.get(accountId)).toBeLessThanOrEqual(limit);
      // The claimers really competed: the database showed each account at its limit.
      expect(observedMax.get(accountId)).toBe(limit);
      expect(await claimOrder(replicas[0], submitted.get(accountId) as string[])).toEqual(submitted.get(accountId));
    }
    const totals = (await replicas[0].query(
      `SELECT count(*)::int AS jobs, count(*) FILTER (WHERE attempts = 1 AND status = 'completed')::int AS once,
              (SELECT count(*)::int FROM outbox WHERE payload->'record'->>'id' IN (SELECT id::text FROM jobs WHERE account_id = ANY($1::uuid[]))) AS events
       FROM jobs WHERE account_id = ANY($1::uuid[])`,
      [accountIds],
    )) as unknown[];
    expect(totals).toEqual([{ jobs: 90, once: 90, events: 90 }]);
  });

  it('admits and claims by index on a table that grew since the connection first ran them (no plan kept from when it was small)', async () => {
    const runner = replicas[1].createQueryRunner();
    await runner.connect();
    const accountId = randomUUID();
    const admitSql = `SELECT item, outcome FROM admit_batch(ARRAY[$1::uuid], ARRAY[$2::uuid], ARRAY[gen_random_uuid()], ARRAY['pixel-flux-1'], ARRAY['TEXT_TO_IMAGE'],
                        ARRAY['p'], ARRAY[1], ARRAY[1], ARRAY[NULL::text], ARRAY[60], ARRAY[100000], 'w', 30000, ARRAY[1],
                        ARRAY['{}'::jsonb], ARRAY['{}'::jsonb])`;
    try {
      // Statistics taken while the table is small (as autovacuum takes them after a fresh install's first jobs),
      // then enough runs on this connection for PostgreSQL to keep a generic plan, were it allowed to.
      await runner.query(`ANALYZE jobs`);
      for (let i = 0; i < 8; i++) await runner.query(admitSql, [randomUUID(), accountId]);
      for (let i = 0; i < 8; i++) await runner.query(`SELECT * FROM claim_jobs($1::uuid, 'w', 30000, 1)`, [accountId]);
      await runner.query(
        `INSERT INTO jobs (id, account_id, api_key_id, model_id, type, prompt, status, credits, parallel_limit, output_key, started_at, completed_at)
         SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'pixel-flux-1', 'TEXT_TO_IMAGE', 'p', 'completed', 1, 1, 'k', now(), now()
         FROM generate_series(1, 30000)`,
      );
      // The connection's own counters, not yet published (pg_stat_xact_*, which also hold its earlier statements' counts).
      const seqScans = async () => Number((await runner.query(`SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'jobs'`))[0].seq_scan);
      await runner.startTransaction();
      const before = await seqScans();
      await runner.query(admitSql, [randomUUID(), accountId]);
      await runner.query(`SELECT * FROM claim_jobs($1::uuid, 'w', 30000, 1)`, [accountId]);
      expect((await seqScans()) - before).toBe(0);
      await runner.rollbackTransaction();
    } finally {
      await runner.query(`DELETE FROM jobs WHERE status = 'completed' AND output_key = 'k'`);
      await runner.release();
    }
  });
});
