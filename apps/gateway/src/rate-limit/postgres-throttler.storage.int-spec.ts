import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openAuthDatabase } from '../gateway.database';
import { PostgresThrottlerStorage } from './postgres-throttler.storage';
import { RateLimitRepository } from './rate-limit.repository';

/** Integration: real PostgreSQL. The counter must be exact under concurrency, with no in-process lock. */
describe('PostgresThrottlerStorage (PostgreSQL)', () => {
  let database: TestDatabase;
  let dataSources: DataSource[];
  let storages: PostgresThrottlerStorage[];
  let repository: RateLimitRepository;

  beforeAll(async () => {
    database = await createTestDatabase('ratelimit');
    // Two pools stand for two gateway replicas.
    dataSources = [await openAuthDatabase(database.url, 20), await openAuthDatabase(database.url, 20)];
    repository = new RateLimitRepository(dataSources[0]);
    storages = dataSources.map((ds) => new PostgresThrottlerStorage(new RateLimitRepository(ds)));
  });
  afterAll(async () => {
    await Promise.all(dataSources.map((ds) => ds.destroy()));
    await database.drop();
  });

  const windowMsLeft = () => 60_000 - (Date.now() % 60_000);
  /** Starts a test at least `ms` before the end of the current minute window. */
  const awayFromWindowEnd = async (ms: number) => {
    if (windowMsLeft() < ms) await new Promise((r) => setTimeout(r, windowMsLeft() + 50));
  };

  it('counts 300 concurrent hits over two pools exactly: each hit sees a distinct count, 20 admitted', async () => {
    await awayFromWindowEnd(10_000);
    const key = `default:account:${randomUUID()}`;
    const records = await Promise.all(
      Array.from({ length: 300 }, (_, i) => storages[i % 2].increment(key, 60_000, 20, 60_000, 'default')),
    );
    expect(records.map((r) => r.totalHits).sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(records.filter((r) => !r.isBlocked)).toHaveLength(20);
    for (const r of records) {
      expect(r.isBlocked).toBe(r.totalHits > 20);
      expect(r.timeToExpire).toBeGreaterThanOrEqual(1);
      expect(r.timeToExpire).toBeLessThanOrEqual(60);
      expect(r.timeToBlockExpire).toBe(r.isBlocked ? r.timeToExpire : 0);
    }
    const rows = await dataSources[0].query(`SELECT hits FROM rate_limit_windows WHERE key = $1`, [key]);
    expect(rows).toEqual([{ hits: 300 }]);
  });

  it('keeps keys apart', async () => {
    await awayFromWindowEnd(5_000);
    const [a, b] = [`default:account:${randomUUID()}`, `default:account:${randomUUID()}`];
    await storages[0].increment(a, 60_000, 1, 60_000, 'default');
    expect((await storages[0].increment(a, 60_000, 1, 60_000, 'default')).isBlocked).toBe(true);
    expect(await storages[1].increment(b, 60_000, 1, 60_000, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('starts a fresh count when the window ends (windows aligned on the database clock)', async () => {
    const key = `default:account:${randomUUID()}`;
    const first = await storages[0].increment(key, 1_000, 1, 1_000, 'default');
    const second = await storages[1].increment(key, 1_000, 1, 1_000, 'default');
    // Both fell into one window, or the window ended between them: either way the counts agree.
    expect(second.totalHits === 2 ? second.isBlocked : !second.isBlocked).toBe(true);
    expect(first.timeToExpire).toBe(1);
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await storages[0].increment(key, 1_000, 1, 1_000, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
    const starts: Array<{ window_start: Date }> = await dataSources[0].query(
      `SELECT window_start FROM rate_limit_windows WHERE key = $1 ORDER BY window_start`,
      [key],
    );
    for (const { window_start } of starts) expect(window_start.getTime() % 1_000).toBe(0);
  });

  it('removes ended windows (after the grace period) and keeps current ones', async () => {
    const ended = `default:account:${randomUUID()}`;
    const current = `default:account:${randomUUID()}`;
    await storages[0].increment(ended, 60_000, 10, 60_000, 'default');
    await dataSources[0].query(
      `UPDATE rate_limit_windows SET window_start = window_start - interval '1 hour', expires_at = expires_at - interval '1 hour' WHERE key = $1`,
      [ended],
    );
    await storages[0].increment(current, 60_000, 10, 60_000, 'default');
    expect(await repository.deleteExpired(60_000)).toBeGreaterThanOrEqual(1);
    const keys: Array<{ key: string }> = await dataSources[0].query(`SELECT key FROM rate_limit_windows WHERE key = ANY($1)`, [[ended, current]]);
    expect(keys).toEqual([{ key: current }]);
  });
});
