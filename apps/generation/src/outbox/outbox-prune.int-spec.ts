import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { OutboxRelay } from '@gen/persistence';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import { OutboxRepository } from './outbox.repository';

const HOUR = 3_600_000;

/**
 * Integration (real PostgreSQL): published events are deleted once their retention has passed, a
 * batch at a time; an event not published yet is never deleted, however old.
 */
describe('outbox: published events past their retention are pruned (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  let relay: OutboxRelay;

  beforeAll(async () => {
    database = await createTestDatabase('outbox_prune');
    db = await openGenerationDatabase(database.url, 4);
    relay = new OutboxRelay(new OutboxRepository(db), {
      name: 'Outbox relay (test)',
      owner: 'test',
      pollMs: 60_000,
      batch: 50,
      leaseMs: 10_000,
      retentionMs: 24 * HOUR,
      publish: async () => undefined,
    });
  });
  afterEach(() => db.query(`DELETE FROM outbox`));
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  /** An event created `createdHoursAgo` and published `publishedHoursAgo` (null: not yet). */
  const event = async (createdHoursAgo: number, publishedHoursAgo: number | null): Promise<string> => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO outbox (id, pattern, payload, created_at, published_at)
       VALUES ($1, 'generation.completed', '{}'::jsonb, now() - $2 * interval '1 hour', now() - $3 * interval '1 hour')`,
      [id, createdHoursAgo, publishedHoursAgo],
    );
    return id;
  };
  const remaining = async () => ((await db.query(`SELECT id FROM outbox ORDER BY id`)) as Array<{ id: string }>).map((r) => r.id).sort();

  it('deletes what was published before the retention, keeps what was published since and what is not published yet', async () => {
    const old = await event(30, 30);
    const oldToo = await event(26, 25);
    const recent = await event(26, 23);
    const unpublished = await event(48, null);
    expect(await relay.prunePublished(24 * HOUR)).toBe(2);
    expect(await remaining()).toEqual([recent, unpublished].sort());
    expect(await remaining()).not.toContain(old);
    expect(await remaining()).not.toContain(oldToo);
    // Nothing more to do: a second pass deletes nothing.
    expect(await relay.prunePublished(24 * HOUR)).toBe(0);
  });

  it('a backlog larger than one statement goes in one pass, a batch at a time', async () => {
    await db.query(
      `INSERT INTO outbox (id, pattern, payload, created_at, published_at)
       SELECT gen_random_uuid(), 'generation.completed', '{}'::jsonb, now() - interval '50 hours', now() - interval '49 hours' FROM generate_series(1, 12000)`,
    );
    const kept = await event(1, 1);
    expect(await relay.prunePublished(24 * HOUR)).toBe(12_000);
    expect(await remaining()).toEqual([kept]);
  });

  it('finds them through an index of their own (outbox_published), not by reading the table', async () => {
    const [index] = (await db.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'generation' AND indexname = 'outbox_published'`)) as Array<{ indexdef: string }>;
    expect(index?.indexdef).toMatch(/\(published_at\) WHERE \(published_at IS NOT NULL\)/);
  });
});
