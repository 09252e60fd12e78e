import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import type { GenerationSettings } from '../config/generation.tokens';
import { DEFAULT_OUTBOX_SETTINGS } from '../config/outbox.settings';
import { finishedEvent } from './job-events';
import { JobFinishWriter } from './job-finish.writer';
import type { JobFinisherSettings } from '../config/job-finisher.settings';
import { jobStore, JobStore } from './test/job-store';
import { FinishRequest } from './job-finish.repository';
import { JobOutcome } from './job-finish.repository';

/**
 * Integration (real PostgreSQL): the workers' finishes are group-committed. Each caller gets its own
 * answer once its job's final state and event are committed; an item the database refuses fails
 * alone; a batch that failed for the database's own reasons is tried again without finishing
 * anything twice; and a finish that cannot be written is not lost: the job's lease runs out and it
 * is queued again.
 */
describe('JobFinishWriter: grouped finishes (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  let observer: DataSource;
  let repo: JobStore;
  const WORKER = 'worker-f';
  const settings = { workerId: WORKER, cdnBaseUrl: 'http://cdn.test' } as GenerationSettings;

  beforeAll(async () => {
    database = await createTestDatabase('finisher');
    db = await openGenerationDatabase(database.url, 8);
    // Another "replica": what it reads is committed.
    observer = await openGenerationDatabase(database.url, 2);
    repo = jobStore(db);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await Promise.all([db.destroy(), observer.destroy()]);
    await database.drop();
  });

  const finisher = (options: Partial<JobFinisherSettings> = {}) =>
    new JobFinishWriter(repo.finishes, settings, DEFAULT_OUTBOX_SETTINGS, { maxBatch: 100, attempts: 3, retryDelayMs: 10, ...options });

  /** `count` jobs of one account, claimed by WORKER (processing). */
  async function running(count: number, leaseMs = 60_000): Promise<string[]> {
    const accountId = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      await repo.admit({ id, accountId, apiKeyId: randomUUID(), modelId: 'pixel-flux-1', type: 'TEXT_TO_IMAGE', prompt: `p${i}`, credits: 4, parallelLimit: count, webhookUrl: null }, 0);
      ids.push(id);
    }
    expect(await repo.claim(accountId, WORKER, leaseMs, count)).toHaveLength(count);
    return ids;
  }

  const completed = (jobId: string): JobOutcome => ({ status: 'completed', outputs: [{ key: `ab/${jobId.replace(/-/g, '')}.png`, content_type: 'image/png', bytes: 1 }], keepSeconds: 3600 });
  const request = (jobId: string, outcome: JobOutcome = completed(jobId)): FinishRequest => ({
    jobId,
    owner: WORKER,
    outcome,
    event: (job) => finishedEvent(job, settings.cdnBaseUrl),
  });

  /** As another replica sees them: status and the events written for each job. */
  const seen = async (ids: string[]) =>
    (await observer.query(
      `SELECT jobs.id, jobs.status, jobs.output_key, (SELECT count(*)::int FROM outbox WHERE payload->'record'->>'id' = jobs.id::text) AS events,
              (SELECT min(lease_owner) FROM outbox WHERE payload->'record'->>'id' = jobs.id::text) AS event_lease
       FROM jobs WHERE id = ANY($1::uuid[]) ORDER BY seq`,
      [ids],
    )) as Array<{ id: string; status: string; output_key: string | null; events: number; event_lease: string | null }>;

  it('writes concurrent finishes in shared transactions; each answer comes once its final state and event are committed', async () => {
    const ids = await running(40);
    const batches = jest.spyOn(repo.finishes, 'finishMany');
    const f = finisher();
    const checkedOnAnswer: string[] = [];
    const results = await Promise.all(
      ids.map(async (id) => {
        const result = await f.finish(request(id));
        // Committed when answered: another connection sees the final state and the event already.
        const [row] = await seen([id]);
        if (row.status === 'completed' && row.events === 1) checkedOnAnswer.push(id);
        return result;
      }),
    );
    expect(checkedOnAnswer.sort()).toEqual([...ids].sort());
    expect(batches.mock.calls.length).toBeLessThanOrEqual(2);
    results.forEach((result, i) => {
      expect(result?.job).toMatchObject({ id: ids[i], status: 'completed', outputKey: `ab/${ids[i].replace(/-/g, '')}.png` });
      expect(result?.event.payload).toMatchObject({ eventId: result?.event.id, record: { id: ids[i], status: 'completed' } });
    });
    // The events are held by this process's relay, which publishes them at once.
    expect((await seen(ids)).every((r) => r.event_lease === WORKER)).toBe(true);
  });

  it('answers null, as a single finish would, for a job no longer this worker’s or finished twice in one batch', async () => {
    const [mine, taken] = await running(2);
    await observer.query(`UPDATE jobs SET lease_owner = 'someone-else' WHERE id = $1`, [taken]);
    const f = finisher();
    const failed: JobOutcome = { status: 'failed', error: 'The generation failed.' };
    const [first, second, other] = await Promise.all([f.finish(request(mine)), f.finish(request(mine, failed)), f.finish(request(taken))]);
    expect(first?.job.status).toBe('completed');
    expect(second).toBeNull();
    expect(other).toBeNull();
    expect(await seen([mine, taken])).toEqual([
      expect.objectContaining({ id: mine, status: 'completed', events: 1 }),
      expect.objectContaining({ id: taken, status: 'processing', events: 0 }),
    ]);
  });

  it('fails only the item the database refuses; the rest of its batch is written', async () => {
    const ids = await running(5);
    const f = finisher();
    // An expiry the integer column cannot hold: PostgreSQL refuses the whole statement.
    const refused: JobOutcome = { status: 'completed', outputs: [{ key: 'ab/refused.png', content_type: 'image/png', bytes: 1 }], keepSeconds: 2 ** 40 };
    const outcomes = await Promise.allSettled(ids.map((id, i) => f.finish(request(id, i === 2 ? refused : completed(id)))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((await seen(ids)).map((r) => [r.status, r.events])).toEqual([
      ['completed', 1],
      ['completed', 1],
      ['processing', 0],
      ['completed', 1],
      ['completed', 1],
    ]);
  });

  // The failures below are injected around the real repository: the database cannot be made to lose
  // an answer after its commit on cue.
  it('tries a batch again after a failure of the database itself, and never finishes a job twice when the commit had gone through', async () => {
    const [beforeCommit, afterCommit] = await running(2);
    const real = repo.finishes.finishMany.bind(repo.finishes);
    const f = finisher();

    jest.spyOn(repo.finishes, 'finishMany').mockImplementationOnce(() => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')));
    const retried = await f.finish(request(beforeCommit));
    expect(retried?.job.status).toBe('completed');

    jest.spyOn(repo.finishes, 'finishMany').mockImplementationOnce(async (requests, lease) => {
      await real(requests, lease);
      throw new Error('Connection terminated unexpectedly');
    });
    // Committed, answer lost: the retry finds the job final and answers null (the runner then sees
    // the job holds its own output and keeps the file).
    expect(await f.finish(request(afterCommit))).toBeNull();
    expect(await seen([beforeCommit, afterCommit])).toEqual([
      expect.objectContaining({ status: 'completed', events: 1 }),
      expect.objectContaining({ status: 'completed', events: 1, output_key: `ab/${afterCommit.replace(/-/g, '')}.png` }),
    ]);
  });

  it('does not lose a finish the database keeps failing: it fails after its attempts, and the job is queued again when its lease ends', async () => {
    const [id] = await running(1, 300);
    jest.spyOn(repo.finishes, 'finishMany').mockImplementation(() => Promise.reject(new Error('Connection terminated unexpectedly')));
    await expect(finisher({ attempts: 2 }).finish(request(id))).rejects.toThrow('Connection terminated unexpectedly');
    jest.restoreAllMocks();
    expect(await seen([id])).toEqual([expect.objectContaining({ status: 'processing', events: 0 })]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await repo.expiredLeases(100)).map((j) => j.id)).toContain(id);
    expect(await repo.requeueExpired(id)).toBe(true);
    expect((await repo.findById(id))?.status).toBe('queued');
  });
});
