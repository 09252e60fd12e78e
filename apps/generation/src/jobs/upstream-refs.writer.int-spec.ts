import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import { jobStore, JobStore } from './test/job-store';
import { UpstreamRefsRepository } from './upstream-refs.repository';
import { UpstreamRefsWriter } from './upstream-refs.writer';

/**
 * Integration (real PostgreSQL): upstream references stored together. Each item gets its own
 * answer: stored for the worker that holds the job, refused for another worker or a finished job,
 * whatever else its batch holds.
 */
describe('UpstreamRefsWriter (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  let jobs: JobStore;
  let writer: UpstreamRefsWriter;
  const accountId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase('upstream-refs');
    db = await openGenerationDatabase(database.url, 8);
    jobs = jobStore(db);
    writer = new UpstreamRefsWriter(new UpstreamRefsRepository(db));
  });
  afterAll(async () => {
    await writer.onModuleDestroy();
    await jobs.onModuleDestroy();
    await db.destroy();
    await database.drop();
  });

  /** `count` jobs admitted and claimed by `owner`. */
  async function claimed(owner: string, count: number): Promise<string[]> {
    for (let i = 0; i < count; i++) {
      const admitted = await jobs.admit(
        { id: randomUUID(), accountId, apiKeyId: randomUUID(), modelId: 'motion-lite-1', type: 'TEXT_TO_VIDEO', prompt: `job ${i}`, credits: 4, parallelLimit: 1_000, webhookUrl: null },
        1_000_000,
      );
      expect(admitted.kind).toBe('queued');
    }
    return (await jobs.claim(accountId, owner, 60_000, count)).map((job) => job.id);
  }

  const refOf = async (id: string) => (await jobs.findById(id))?.upstreamRef ?? null;

  it('stores a burst of references (batched together), each for the worker that holds its job', async () => {
    const ids = await claimed('worker-a', 40);
    expect(ids).toHaveLength(40);
    const results = await Promise.all(ids.map((id, i) => writer.save(id, 'worker-a', `replicate:p${i}`)));
    expect(results).toEqual(ids.map(() => true));
    expect(await Promise.all(ids.map(refOf))).toEqual(ids.map((_, i) => `replicate:p${i}`));
  });

  it('refuses, item by item, a job another worker holds or that is no longer processing', async () => {
    const [mine, theirs, canceled] = await claimed('worker-b', 3);
    await db.query(`UPDATE jobs SET status = 'failed', completed_at = now(), lease_owner = NULL, lease_expires_at = NULL WHERE id = $1`, [canceled]);
    const results = await Promise.all([
      writer.save(mine, 'worker-b', 'replicate:mine'),
      writer.save(theirs, 'worker-c', 'replicate:theirs'),
      writer.save(canceled, 'worker-b', 'replicate:late'),
    ]);
    expect(results).toEqual([true, false, false]);
    expect(await refOf(mine)).toBe('replicate:mine');
    expect(await refOf(theirs)).toBeNull();
    expect(await refOf(canceled)).toBeNull();
  });
});
