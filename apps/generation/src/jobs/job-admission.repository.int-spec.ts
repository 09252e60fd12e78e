import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import { jobStore, JobStore } from './test/job-store';
import { NewJob } from './job-admission.repository';

/** Integration: real PostgreSQL. The queue cap and the parallel slots hold across replicas (pools). */
describe('Job admission: queue cap and slots (PostgreSQL)', () => {
  let database: TestDatabase;
  let dataSources: DataSource[];
  let replicas: JobStore[];

  beforeAll(async () => {
    database = await createTestDatabase('jobs');
    dataSources = [await openGenerationDatabase(database.url, 15), await openGenerationDatabase(database.url, 15)];
    replicas = dataSources.map((ds) => jobStore(ds));
  });
  afterAll(async () => {
    await Promise.all(dataSources.map((ds) => ds.destroy()));
    await database.drop();
  });

  const newJob = (accountId: string, parallelLimit: number, id = randomUUID()): NewJob => ({
    id,
    accountId,
    apiKeyId: randomUUID(),
    modelId: 'tone-weaver-1',
    type: 'TEXT_TO_AUDIO',
    prompt: 'a bell',
    credits: 10,
    parallelLimit,
    webhookUrl: null,
  });
  const statuses = async (accountId: string) =>
    (await dataSources[0].query(`SELECT status, count(*)::int AS n FROM jobs WHERE account_id = $1 GROUP BY status ORDER BY status`, [
      accountId,
    ])) as Array<{ status: string; n: number }>;

  it('admits exactly slots + cap of 60 concurrent submits on two replicas', async () => {
    const accountId = randomUUID();
    const outcomes = await Promise.all(Array.from({ length: 60 }, (_, i) => replicas[i % 2].admit(newJob(accountId, 2), 4)));
    expect(outcomes.filter((o) => o.kind === 'queued')).toHaveLength(6);
    const refused = outcomes.filter((o) => o.kind === 'queue-full');
    expect(refused).toHaveLength(54);
    for (const o of refused) expect(o).toMatchObject({ queued: 6, processing: 0, retryAfterSeconds: expect.any(Number) });
    expect(await statuses(accountId)).toEqual([{ status: 'queued', n: 6 }]);
  });

  it('counts running jobs against the cap, and frees a place when one finishes', async () => {
    const accountId = randomUUID();
    for (let i = 0; i < 3; i++) expect((await replicas[0].admit(newJob(accountId, 1), 2)).kind).toBe('queued');
    const [running] = await replicas[1].claim(accountId, 'worker-b', 60_000, 1);
    expect(running).not.toBeNull();
    const full = await replicas[0].admit(newJob(accountId, 1), 2);
    expect(full).toMatchObject({ kind: 'queue-full', queued: 2, processing: 1 });
    expect(full.kind === 'queue-full' && full.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    await replicas[1].finish(running!.id, 'worker-b', { status: 'failed', error: 'x' }, (job) => ({
      id: randomUUID(),
      pattern: 'generation.failed',
      payload: { id: job.id },
    }));
    expect((await replicas[0].admit(newJob(accountId, 1), 2)).kind).toBe('queued');
  });

  it('leaves a repeated job id as it is, even when the queue is full', async () => {
    const accountId = randomUUID();
    const job = newJob(accountId, 1);
    expect((await replicas[0].admit(job, 0)).kind).toBe('queued');
    expect((await replicas[1].admit(job, 0)).kind).toBe('exists');
    expect((await replicas[1].admit(newJob(accountId, 1), 0)).kind).toBe('queue-full');
  });

  it('claims in submission order and never runs more than the slots, with two replicas claiming at once', async () => {
    const accountId = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const job = newJob(accountId, 3);
      ids.push(job.id);
      await replicas[i % 2].admit(job, 10);
    }
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) => replicas[i % 2].claim(accountId, `worker-${i % 2}`, 60_000, 1)),
    );
    const claimed = claims.flat();
    expect(claimed.length).toBeLessThanOrEqual(3);
    // A claimer that finds the account being served by another skips it (SKIP LOCKED, docs/design/jobs.md);
    // the next pass fills what is left of the slots, and no more.
    claimed.push(...(await replicas[0].claim(accountId, 'worker-0', 60_000, 10)));
    expect(claimed).toHaveLength(3);
    expect(claimed.map((c) => c.id).sort()).toEqual(ids.slice(0, 3).sort());
  });
});
