import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import { jobStore, JobStore } from './test/job-store';
import { JobReadsRepository } from './job-reads.repository';
import { SubmittedJobsReader } from './submitted-jobs.reader';

/**
 * Integration (real PostgreSQL): the read a submit answers with, many at once. Each caller gets its
 * own job with the same queue position a GET computes, and nothing of another account.
 */
describe('SubmittedJobsReader (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  let jobs: JobStore;
  let reader: SubmittedJobsReader;

  beforeAll(async () => {
    database = await createTestDatabase('submitted-jobs');
    db = await openGenerationDatabase(database.url, 8);
    jobs = jobStore(db);
    reader = new SubmittedJobsReader(new JobReadsRepository(db));
  });
  afterAll(async () => {
    await jobs.onModuleDestroy();
    await db.destroy();
    await database.drop();
  });

  async function admit(accountId: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      const admitted = await jobs.admit(
        { id, accountId, apiKeyId: randomUUID(), modelId: 'pixel-flux-1', type: 'TEXT_TO_IMAGE', prompt: `job ${i}`, credits: 4, parallelLimit: 2, webhookUrl: null },
        1_000,
      );
      expect(admitted.kind).toBe('queued');
      ids.push(id);
    }
    return ids;
  }

  it('answers every concurrent read with its job and its place among the account\'s queued jobs', async () => {
    const accountA = randomUUID();
    const accountB = randomUUID();
    const a = await admit(accountA, 6);
    const b = await admit(accountB, 3);
    const started = await jobs.claim(accountA, 'worker', 60_000, 2);
    expect(started.map((j) => j.id)).toEqual(a.slice(0, 2));

    const reads = await Promise.all([...a, ...b].map((id, i) => reader.read(i < a.length ? accountA : accountB, id)));
    expect(reads.map((r) => r?.job.id)).toEqual([...a, ...b]);
    expect(reads.map((r) => r?.job.status)).toEqual(['processing', 'processing', 'queued', 'queued', 'queued', 'queued', 'queued', 'queued', 'queued']);
    expect(reads.map((r) => r?.ahead)).toEqual([null, null, 0, 1, 2, 3, 0, 1, 2]);
    // The same positions as the GET path's count.
    expect([...(await jobs.queuePositions(accountA, reads.slice(2, 6).map((r) => r!.job.seq))).values()]).toEqual([0, 1, 2, 3]);
  });

  it('finds nothing for a job of another account, or none at all', async () => {
    const [mine] = await admit(randomUUID(), 1);
    expect(await Promise.all([reader.read(randomUUID(), mine), reader.read(randomUUID(), randomUUID())])).toEqual([null, null]);
  });
});
