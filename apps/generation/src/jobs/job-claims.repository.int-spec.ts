import { randomUUID } from 'node:crypto';
import { finishedEvent } from './job-events';
import { jobStore, JobStore } from './test/job-store';
import { claimOrder, claimReplicas } from './test/claim-log';

/**
 * Integration (real PostgreSQL): the hand-written claim. Several "replicas" (DataSources with their
 * own pools) claim at once; an account never runs more jobs than its slots, and its jobs start in
 * submission order (docs/design/jobs.md).
 */
describe('JobClaimsRepository.claim (PostgreSQL)', () => {
  const kit = claimReplicas('claims');
  const { replicas } = kit;

  const LEASE = 30_000;
  const cdn = 'http://cdn.test';

  async function queue(accountId: string, count: number, parallelLimit: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      const admitted = await kit.repo.admit(
        { id, accountId, apiKeyId: randomUUID(), modelId: 'pixel-flux-1', type: 'TEXT_TO_IMAGE', prompt: `job ${i}`, credits: 4, parallelLimit, webhookUrl: null },
        1_000_000,
      );
      expect(admitted.kind).toBe('queued');
      ids.push(id);
    }
    return ids;
  }

  const complete = (r: JobStore, jobId: string, owner: string) =>
    r.finish(jobId, owner, { status: 'completed', outputs: [{ key: `ab/${jobId.replace(/-/g, '')}.png`, content_type: 'image/png', bytes: 1 }], keepSeconds: 3600 }, (j) =>
      finishedEvent(j, cdn),
    );

  /** Per account: running jobs now, and whether every started job precedes every queued one (FIFO). */
  async function snapshot(accountIds: string[]) {
    return replicas[0].query(
      `SELECT account_id,
              count(*) FILTER (WHERE status = 'processing')::int AS running,
              coalesce(max(seq) FILTER (WHERE status <> 'queued') < min(seq) FILTER (WHERE status = 'queued'), true) AS fifo
       FROM jobs WHERE account_id = ANY($1::uuid[]) GROUP BY account_id`,
      [accountIds],
    ) as Promise<Array<{ account_id: string; running: number; fifo: boolean }>>;
  }

  it('many concurrent claimers on three replicas never exceed an account\'s slots, and start its jobs in order', async () => {
    const limits = new Map<string, number>([
      [randomUUID(), 3],
      [randomUUID(), 1],
      [randomUUID(), 5],
    ]);
    const perAccount = 24;
    const submitted = new Map<string, string[]>();
    for (const [accountId, limit] of limits) submitted.set(accountId, await queue(accountId, perAccount, limit));
    const accountIds = [...limits.keys()];

    const inFlight = new Map<string, number>(accountIds.map((a) => [a, 0]));
    const maxInFlight = new Map<string, number>(accountIds.map((a) => [a, 0]));
    const startOrder = new Map<string, string[]>(accountIds.map((a) => [a, []]));
    const violations: string[] = [];
    let remaining = limits.size * perAccount;

    const claimer = async (index: number) => {
      const r = jobStore(replicas[index % replicas.length]);
      const owner = `worker-${index}`;
      while (remaining > 0) {
        const accounts = await r.accountsWithQueuedJobs(100);
        let claimedAny = false;
        for (const accountId of accounts) {
          // Half the claimers take one job at a time, the others batches of up to 3.
          const jobs = await r.claim(accountId, owner, LEASE, index % 2 === 0 ? 1 : 3);
          if (jobs.length === 0) continue;
          claimedAny = true;
          const running = (inFlight.get(accountId) as number) + jobs.length;
          inFlight.set(accountId, running);
          maxInFlight.set(accountId, Math.max(maxInFlight.get(accountId) as number, running));
          if (running > (limits.get(accountId) as number)) violations.push(`${accountId}: ${running} running`);
          startOrder.get(accountId)?.push(...jobs.map((j) => j.id));
          await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20)); // "runs" the jobs
          inFlight.set(accountId, (inFlight.get(accountId) as number) - jobs.length);
          for (const job of jobs) {
            expect(await complete(r, job.id, owner)).not.toBeNull();
            remaining--;
          }
        }
        if (!claimedAny) await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };

    // Meanwhile, the database's own view, sampled: never above the limit, never out of order.
    let observing = true;
    const observedMax = new Map<string, number>(accountIds.map((a) => [a, 0]));
    const observer = (async () => {
      while (observing) {
        for (const row of await snapshot(accountIds)) {
          observedMax.set(row.account_id, Math.max(observedMax.get(row.account_id) as number, row.running));
          if (row.running > (limits.get(row.account_id) as number)) violations.push(`db: ${row.account_id} ${row.running} running`);
          if (!row.fifo) violations.push(`db: ${row.account_id} started a job before an older queued one`);
        }
      }
    })();

    await Promise.all(Array.from({ length: 24 }, (_, i) => claimer(i)));
    observing = false;
    await observer;

    expect(violations).toEqual([]);
    for (const [accountId, limit] of limits) {
      expect(maxInFlight.get(accountId)).toBeLessThanOrEqual(limit);
      // The claimers really competed: each account was seen at its limit.
      expect(observedMax.get(accountId)).toBe(limit);
      // Claims commit in submission order (the account row's lock serialises them); the callers see
      // the same jobs, in an order that depends on which answer their socket delivers first.
      expect([...(startOrder.get(accountId) as string[])].sort()).toEqual([...(submitted.get(accountId) as string[])].sort());
      expect(await claimOrder(replicas[0], submitted.get(accountId) as string[])).toEqual(submitted.get(accountId));
    }
    // Every job ran once and announced itself once.
    const totals = await replicas[0].query(
      `SELECT count(*)::int AS jobs, count(*) FILTER (WHERE attempts = 1 AND status = 'completed')::int AS once,
              (SELECT count(*)::int FROM outbox WHERE payload->'record'->>'id' IN (SELECT id::text FROM jobs WHERE account_id = ANY($1::uuid[]))) AS events
       FROM jobs WHERE account_id = ANY($1::uuid[])`,
      [accountIds],
    );
    expect(totals).toEqual([{ jobs: 72, once: 72, events: 72 }]);
  });

  const claimOne = async (accountId: string, owner: string) => (await kit.repo.claim(accountId, owner, LEASE, 1))[0] ?? null;

  it('a single claimer takes an account\'s jobs oldest first, up to its slots, then none', async () => {
    const accountId = randomUUID();
    const ids = await queue(accountId, 5, 3);
    const claimed = [];
    for (let i = 0; i < 5; i++) claimed.push(await claimOne(accountId, 'w'));
    expect(claimed.map((j) => j?.id ?? null)).toEqual([ids[0], ids[1], ids[2], null, null]);
    expect(claimed[0]).toMatchObject({ id: ids[0], status: 'processing', attempts: 1, leaseOwner: 'w', accountId, parallelLimit: 3 });
    expect(claimed[0]).toEqual(await kit.repo.findById(ids[0]));
    await complete(kit.repo, ids[1], 'w');
    expect((await claimOne(accountId, 'w'))?.id).toBe(ids[3]);
  });

  it('a batch claim takes the oldest jobs, never more than the free slots', async () => {
    const accountId = randomUUID();
    const ids = await queue(accountId, 8, 5);
    expect((await kit.repo.claim(accountId, 'w', LEASE, 2)).map((j) => j.id)).toEqual(ids.slice(0, 2));
    expect((await kit.repo.claim(accountId, 'w', LEASE, 10)).map((j) => j.id)).toEqual(ids.slice(2, 5));
    expect(await kit.repo.claim(accountId, 'w', LEASE, 10)).toEqual([]);
  });

  it('a claimer skips an account another claimer is deciding for, instead of waiting for it', async () => {
    const accountId = randomUUID();
    const [first] = await queue(accountId, 2, 2);
    expect(await claimOne(accountId, 'w')).toMatchObject({ id: first });
    const holder = replicas[1].createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query(`SELECT 1 FROM account_slots WHERE account_id = $1 FOR UPDATE`, [accountId]);
      const started = Date.now();
      expect(await kit.repo.claim(accountId, 'other', LEASE, 5)).toEqual([]);
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
    expect(await kit.repo.claim(accountId, 'other', LEASE, 5)).toHaveLength(1);
  });

  it('lists accounts with queued work, the one waiting longest first', async () => {
    const [a, b, c]: string[] = [randomUUID(), randomUUID(), randomUUID()];
    await queue(b, 2, 1);
    await queue(a, 3, 1);
    await queue(c, 1, 1);
    const order = (await kit.repo.accountsWithQueuedJobs(1000)).filter((id) => [a, b, c].includes(id));
    expect(order).toEqual([b, a, c]);
    await kit.repo.claim(b, 'w', LEASE, 1); // b's head starts; its next job is still older than a's
    expect((await kit.repo.accountsWithQueuedJobs(1000)).filter((id) => [a, b, c].includes(id))).toEqual([b, a, c]);
    await kit.repo.claim(c, 'w', LEASE, 1); // c has nothing queued any more
    expect((await kit.repo.accountsWithQueuedJobs(1000)).filter((id) => [a, b, c].includes(id))).toEqual([b, a]);
  });

  it('a full account does not hold up another account', async () => {
    const busy = randomUUID();
    const other = randomUUID();
    await queue(busy, 3, 1);
    const [otherJob] = await queue(other, 1, 1);
    expect(await claimOne(busy, 'w')).not.toBeNull();
    expect(await claimOne(busy, 'w')).toBeNull();
    expect((await claimOne(other, 'w'))?.id).toBe(otherJob);
    expect(await kit.repo.accountsWithQueuedJobs(100)).toContain(busy);
  });

  it('a requeued job (its worker died) keeps its place at the head of its account\'s queue', async () => {
    const accountId = randomUUID();
    const ids = await queue(accountId, 3, 1);
    expect((await claimOne(accountId, 'dead'))?.id).toBe(ids[0]);
    await replicas[0].query(`UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [ids[0]]);
    expect(await kit.repo.expiredLeases(100)).toContainEqual({ id: ids[0], attempts: 1 });
    expect(await kit.repo.requeueExpired(ids[0])).toBe(true);
    const again = await claimOne(accountId, 'alive');
    expect(again).toMatchObject({ id: ids[0], attempts: 2, leaseOwner: 'alive' });
    // The dead worker can no longer finish it; the new owner can, once.
    expect(await complete(kit.repo, ids[0], 'dead')).toBeNull();
    expect(await complete(kit.repo, ids[0], 'alive')).not.toBeNull();
    expect(await complete(kit.repo, ids[0], 'alive')).toBeNull();
  });

  it('release hands jobs back without using up an attempt; heartbeats only extend the owner\'s leases', async () => {
    const accountId = randomUUID();
    const [id] = await queue(accountId, 1, 1);
    await claimOne(accountId, 'w1');
    expect(await kit.repo.heartbeat('w2', [id], LEASE)).toEqual({ owned: [], finished: [] });
    expect(await kit.repo.heartbeat('w1', [id], LEASE)).toEqual({ owned: [id], finished: [] });
    expect(await kit.repo.release('w2', [id])).toEqual([]);
    expect(await kit.repo.release('w1', [id])).toEqual([id]);
    expect(await kit.repo.findById(id)).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null });
  });
});
