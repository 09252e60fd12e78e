import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import { Park, ParkedJobsRepository } from './parked-jobs.repository';
import { jobStore, JobStore } from './test/job-store';

/**
 * Integration (real PostgreSQL): the statements of parked provider jobs and of progress, each one
 * round trip that commits without waiting for the WAL flush (set by the statement itself), and
 * each guarded by the worker that holds the job.
 */
describe('ParkedJobsRepository and progress (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  let jobs: JobStore;
  let parked: ParkedJobsRepository;

  beforeAll(async () => {
    database = await createTestDatabase('parked-jobs');
    db = await openGenerationDatabase(database.url, 4);
    jobs = jobStore(db);
    parked = new ParkedJobsRepository(db);
  });
  afterAll(async () => {
    await jobs.onModuleDestroy();
    await db.destroy();
    await database.drop();
  });

  /** `count` jobs of `modelId` admitted and claimed by `owner`. */
  async function claimed(owner: string, count: number, modelId = 'motion-lite-1'): Promise<string[]> {
    const account = randomUUID();
    for (let i = 0; i < count; i++) {
      const admitted = await jobs.admit(
        { id: randomUUID(), accountId: account, apiKeyId: randomUUID(), modelId, type: 'TEXT_TO_VIDEO', prompt: `job ${i}`, credits: 4, parallelLimit: 1_000, webhookUrl: null },
        1_000_000,
      );
      expect(admitted.kind).toBe('queued');
    }
    return (await jobs.claim(account, owner, 60_000, count)).map((job) => job.id);
  }

  const park = (jobId: string, owner: string, delayMs: number): Park => ({ jobId, owner, delayMs, submittedTotalMs: 600_000, checked: false, progress: null, queuePosition: null });
  const row = async (id: string) =>
    (await db.query(`SELECT lease_owner, next_check_at, upstream_deadline_at, progress FROM jobs WHERE id = $1`, [id]))[0] as {
      lease_owner: string | null;
      next_check_at: Date | null;
      upstream_deadline_at: Date | null;
      progress: number | null;
    };

  /** Runs `statement` inside a transaction of the test's own and reads the setting it left there. */
  async function synchronousCommitDuring(statement: (tx: DataSource) => Promise<unknown>): Promise<string> {
    return db.transaction(async (tx) => {
      await statement(tx as unknown as DataSource);
      return ((await tx.query(`SHOW synchronous_commit`)) as Array<{ synchronous_commit: string }>)[0].synchronous_commit;
    });
  }

  it('parks the jobs their worker holds (no lease, a next check, the upstream clock started), and refuses the others', async () => {
    const [mine, alsoMine] = await claimed('worker-a', 2);
    const [theirs] = await claimed('worker-b', 1);
    const results = await parked.parkBatch([park(mine, 'worker-a', 0), park(theirs, 'worker-a', 0), park(alsoMine, 'worker-a', 60_000)]);
    expect(results).toEqual([true, false, true]);
    expect(await row(mine)).toMatchObject({ lease_owner: null, next_check_at: expect.any(Date), upstream_deadline_at: expect.any(Date) });
    expect((await row(theirs)).lease_owner).toBe('worker-b');
    expect((await row(alsoMine)).next_check_at!.getTime()).toBeGreaterThan((await row(mine)).next_check_at!.getTime() + 50_000);
  });

  it('claims the due parked jobs for a checker, leased, leaving those not due and the models it skips', async () => {
    const [due] = await claimed('worker-c', 1);
    const [later] = await claimed('worker-c', 1);
    const [skipped] = await claimed('worker-c', 1, 'tone-weaver-1');
    await parked.parkBatch([park(due, 'worker-c', 0), park(later, 'worker-c', 60_000), park(skipped, 'worker-c', 0)]);
    const taken = await parked.claimDue('checker-1', 30_000, 100, ['tone-weaver-1']);
    expect(taken.map((job) => job.id)).toContain(due);
    expect(taken.map((job) => job.id)).not.toContain(later);
    expect(taken.map((job) => job.id)).not.toContain(skipped);
    expect(await row(due)).toMatchObject({ lease_owner: 'checker-1', next_check_at: null });
    expect(await parked.claimDue('checker-2', 30_000, 100, ['tone-weaver-1'])).toEqual([]);
  });

  it('stores progress only for the jobs the worker holds', async () => {
    const [mine] = await claimed('worker-d', 1);
    const [theirs] = await claimed('worker-e', 1);
    await jobs.saveProgress('worker-d', new Map([[mine, 0.5], [theirs, 0.7]]));
    expect((await row(mine)).progress).toBeCloseTo(0.5);
    expect((await row(theirs)).progress).toBeNull();
  });

  it('each commits without waiting for the WAL flush, set by the statement alone, and leaves the session as it was', async () => {
    const [toPark, toCheck, withProgress] = await claimed('worker-f', 3);
    await parked.parkBatch([park(toCheck, 'worker-f', 0)]);
    expect(await synchronousCommitDuring((tx) => new ParkedJobsRepository(tx).parkBatch([park(toPark, 'worker-f', 0)]))).toBe('off');
    expect(await synchronousCommitDuring((tx) => new ParkedJobsRepository(tx).claimDue('checker-3', 30_000, 100, []))).toBe('off');
    expect(await synchronousCommitDuring((tx) => jobStore(tx).saveProgress('worker-f', new Map([[withProgress, 0.25]])))).toBe('off');
    expect(((await db.query(`SHOW synchronous_commit`)) as Array<{ synchronous_commit: string }>)[0].synchronous_commit).toBe('on');
  });
});
