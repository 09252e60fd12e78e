import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import { OutboxRepository } from '../outbox/outbox.repository';
import { BatchFeedRepository } from './batch-feed.repository';
import { BatchStoreRepository } from './batch-store.repository';

/**
 * Integration (real PostgreSQL, no feeder running): what one feeder pass takes of an account's
 * waiting lines. The pass's cap (BATCH_ADMIT_PER_PASS) spreads the refill of slots that freed
 * together over several passes; the slot rules (parallel limit, kept-free share, the deployment-wide
 * cap) still bound each pass.
 */
describe('BatchFeedRepository.takeLines (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  let feed: BatchFeedRepository;
  let store: BatchStoreRepository;

  beforeAll(async () => {
    database = await createTestDatabase('batch-feed');
    db = await openGenerationDatabase(database.url, 4);
    feed = new BatchFeedRepository(db, new OutboxRepository(db));
    store = new BatchStoreRepository(db);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  /** A sealed batch of `total` waiting lines for a new account with `parallel` slots. */
  async function sealedBatch(total: number, parallel: number): Promise<{ accountId: string; batchId: string }> {
    const accountId = randomUUID();
    const batchId = randomUUID();
    await store.create({
      batchId,
      accountId,
      apiKeyId: randomUUID(),
      plan: 'enterprise',
      parallelLimit: parallel,
      completionWindow: '24h',
      completionWindowSeconds: 86_400,
      webhookUrl: null,
      metadata: {},
      totalLines: total,
    });
    const lines = Array.from({ length: total }, (_, i) => ({
      line: i + 1,
      customId: `req-${i + 1}`,
      model: 'quick-1',
      prompt: `line ${i + 1}`,
      type: 'TEXT_TO_AUDIO' as const,
      input: {},
      metadata: {},
      credits: 1,
      minimumCredits: 1,
      webhookUrl: null,
    }));
    await store.addLines({ batchId, accountId, lines, invalid: [] }, total);
    expect((await store.seal(accountId, batchId)).kind).toBe('sealed');
    return { accountId, batchId };
  }

  const numbers = (lines: Array<{ line: number }>) => lines.map((l) => l.line);

  it('takes at most maxLines a pass, in line order; the next pass takes the next ones', async () => {
    const { accountId } = await sealedBatch(7, 100);
    const limits = { maxInFlight: 1_000, keepFreePercent: 0, maxLines: 3 };
    expect(numbers(await feed.takeLines(accountId, limits))).toEqual([1, 2, 3]);
    expect(numbers(await feed.takeLines(accountId, limits))).toEqual([4, 5, 6]);
    expect(numbers(await feed.takeLines(accountId, limits))).toEqual([7]);
    expect(await feed.takeLines(accountId, limits)).toEqual([]);
  });

  it('still keeps within the free slots and the deployment-wide cap when those are lower', async () => {
    const slots = await sealedBatch(10, 4);
    // Four slots, a quarter kept free: three a pass at most whatever maxLines allows, and then none (all three admitting).
    expect(numbers(await feed.takeLines(slots.accountId, { maxInFlight: 1_000, keepFreePercent: 25, maxLines: 50 }))).toEqual([1, 2, 3]);
    expect(await feed.takeLines(slots.accountId, { maxInFlight: 1_000, keepFreePercent: 25, maxLines: 50 })).toEqual([]);
    const capped = await sealedBatch(10, 100);
    // Ten lines of this database are admitting already (seven above, three here): a cap of 12 leaves two.
    expect(numbers(await feed.takeLines(capped.accountId, { maxInFlight: 12, keepFreePercent: 0, maxLines: 50 }))).toEqual([1, 2]);
  });
});
