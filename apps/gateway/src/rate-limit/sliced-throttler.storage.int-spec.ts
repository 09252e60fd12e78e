import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openAuthDatabase } from '../gateway.database';
import { RateLimitRepository, WindowSlice } from './rate-limit.repository';
import { DEFAULT_RATE_LIMIT_SETTINGS, RateLimitSettings } from '../settings/rate-limit.settings';
import { SlicedThrottlerStorage } from './sliced-throttler.storage';

/** The real repository, counting the leases it makes (the shared writes). */
class CountingRepository extends RateLimitRepository {
  leases = 0;
  override lease(key: string, windowMs: number, limit: number, want: number): Promise<WindowSlice> {
    this.leases++;
    return super.lease(key, windowMs, limit, want);
  }
}

/**
 * Integration: real PostgreSQL, two connection pools standing for two gateway replicas. The bound
 * must be exact across replicas under concurrency (no in-process lock can help), small limits must
 * admit exactly their number, and a busy account must cost far fewer writes than requests.
 */
describe('SlicedThrottlerStorage (PostgreSQL)', () => {
  let database: TestDatabase;
  let dataSources: DataSource[];
  const opened: SlicedThrottlerStorage[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('ratelimit');
    dataSources = [await openAuthDatabase(database.url, 20), await openAuthDatabase(database.url, 20)];
  });
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.onApplicationShutdown()));
    await Promise.all(dataSources.map((ds) => ds.destroy()));
    await database.drop();
  });

  /** Two replicas' storages on the two pools (and their counting repositories). */
  const replicas = (settings: Partial<RateLimitSettings> = {}) => {
    const repositories = dataSources.map((ds) => new CountingRepository(ds));
    const storages = repositories.map((r) => new SlicedThrottlerStorage(r, { ...DEFAULT_RATE_LIMIT_SETTINGS, ...settings }));
    opened.push(...storages);
    return { storages, repositories };
  };
  const newKey = () => `default:account:${randomUUID()}`;
  const leased = async (key: string) =>
    ((await dataSources[0].query(`SELECT hits FROM rate_limit_windows WHERE key = $1 ORDER BY window_start DESC LIMIT 1`, [key])) as Array<{ hits: number }>)[0]
      ?.hits;
  const windowMsLeft = (windowMs = 60_000) => windowMs - (Date.now() % windowMs);
  /** Starts a test at least `ms` before the end of the current minute window (same machine as the database). */
  const awayFromWindowEnd = async (ms: number) => {
    if (windowMsLeft() < ms) await new Promise((r) => setTimeout(r, windowMsLeft() + 50));
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('admits exactly the limit of 300 concurrent hits over two replicas, each admitted hit numbered once', async () => {
    await awayFromWindowEnd(15_000);
    const { storages } = replicas();
    const key = newKey();
    const records = await Promise.all(Array.from({ length: 300 }, (_, i) => storages[i % 2].increment(key, 60_000, 20, 60_000, 'default')));
    const admitted = records.filter((r) => !r.isBlocked);
    expect(admitted).toHaveLength(20);
    // Slices are disjoint ranges of the window's counter: RateLimit-Remaining 19 ... 0, once each.
    expect(admitted.map((r) => r.totalHits).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    for (const r of records) {
      expect(r.timeToExpire).toBeGreaterThanOrEqual(1);
      expect(r.timeToExpire).toBeLessThanOrEqual(60);
      expect(r.timeToBlockExpire).toBe(r.isBlocked ? r.timeToExpire : 0);
      if (r.isBlocked) expect(r.totalHits).toBeGreaterThan(20);
    }
    // The database handed out the limit, no more (whichever replica leased first may have taken it all).
    expect(await leased(key)).toBe(20);
  });

  it.each([1, 5])('a limit of %i admits exactly that many, concurrently or one by one across replicas', async (limit) => {
    await awayFromWindowEnd(15_000);
    const { storages } = replicas();
    const concurrent = newKey();
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => storages[i % 2].increment(concurrent, 60_000, limit, 60_000, 'default')));
    expect(burst.filter((r) => !r.isBlocked)).toHaveLength(limit);

    const sequential = newKey();
    const outcomes: boolean[] = [];
    for (let i = 0; i < 4 * limit + 4; i++) outcomes.push(!(await storages[i % 2].increment(sequential, 60_000, limit, 60_000, 'default')).isBlocked);
    expect(outcomes.filter(Boolean)).toHaveLength(limit);
    // Nothing is held back by one replica: the first `limit` requests, whichever replica took them, all passed.
    expect(outcomes.slice(0, limit)).toEqual(Array.from({ length: limit }, () => true));

    // Most of the demand on one replica, then the other: still exactly `limit`.
    const lopsided = newKey();
    const first = await storages[0].increment(lopsided, 60_000, limit, 60_000, 'default');
    const rest = await Promise.all(Array.from({ length: 10 }, () => storages[1].increment(lopsided, 60_000, limit, 60_000, 'default')));
    expect([first, ...rest].filter((r) => !r.isBlocked)).toHaveLength(limit);
  });

  it('costs one shared write per many requests for a busy account, with exact numbers on one replica', async () => {
    await awayFromWindowEnd(15_000);
    // A long horizon: the slice sizes follow the count of hits, not how fast this machine runs.
    const { storages, repositories } = replicas({ sliceHorizonMs: 60_000 });
    const key = newKey();
    const totals: number[] = [];
    for (let i = 0; i < 2_000; i++) totals.push((await storages[0].increment(key, 60_000, 1_000_000, 60_000, 'default')).totalHits);
    expect(totals).toEqual(Array.from({ length: 2_000 }, (_, i) => i + 1));
    expect(repositories[0].leases).toBeLessThanOrEqual(20);
    // Bursts of concurrent requests ride on the lease in progress: one statement for the whole wave.
    const before = repositories[1].leases;
    const wave = await Promise.all(Array.from({ length: 200 }, () => storages[1].increment(key, 60_000, 1_000_000, 60_000, 'default')));
    expect(wave.every((r) => !r.isBlocked)).toBe(true);
    expect(repositories[1].leases - before).toBeLessThanOrEqual(2);
  });

  it('gives an idle slice back, so another replica can spend it (the bound stays exact)', async () => {
    await awayFromWindowEnd(15_000);
    const { storages } = replicas({ sliceHorizonMs: 60_000, idleReturnMs: 100, sliceShareDivisor: 2 });
    const key = newKey();
    for (let i = 0; i < 10; i++) expect((await storages[0].increment(key, 60_000, 40, 60_000, 'default')).isBlocked).toBe(false);
    // Replica 0 leased ahead of its pace: more than it spent.
    expect(await leased(key)).toBeGreaterThan(10);
    await sleep(150);
    await storages[0].sweep();
    expect(await leased(key)).toBe(10);
    const others = [];
    for (let i = 0; i < 50; i++) others.push(await storages[1].increment(key, 60_000, 40, 60_000, 'default'));
    expect(others.filter((r) => !r.isBlocked)).toHaveLength(30);
  });

  it('a replica that dies loses at most its unspent slice; a graceful stop gives it back', async () => {
    await awayFromWindowEnd(15_000);
    const settings = { sliceHorizonMs: 60_000, idleReturnMs: 60_000, sliceShareDivisor: 2 };
    const killed = newKey();
    const dying = replicas(settings);
    for (let i = 0; i < 6; i++) await dying.storages[0].increment(killed, 60_000, 40, 60_000, 'default');
    const held = (await leased(killed)) - 6;
    expect(held).toBeGreaterThan(0);
    // Replica 0 is gone without a word (kill -9): its slice is lost until the window ends, no more.
    const survivor = replicas(settings).storages[1];
    const after = [];
    for (let i = 0; i < 60; i++) after.push(await survivor.increment(killed, 60_000, 40, 60_000, 'default'));
    expect(after.filter((r) => !r.isBlocked)).toHaveLength(40 - 6 - held);

    const stopped = newKey();
    const stopping = replicas(settings);
    for (let i = 0; i < 6; i++) await stopping.storages[0].increment(stopped, 60_000, 40, 60_000, 'default');
    expect(await leased(stopped)).toBeGreaterThan(6);
    await stopping.storages[0].onApplicationShutdown();
    expect(await leased(stopped)).toBe(6);
    const rest = [];
    for (let i = 0; i < 60; i++) rest.push(await stopping.storages[1].increment(stopped, 60_000, 40, 60_000, 'default'));
    expect(rest.filter((r) => !r.isBlocked)).toHaveLength(34);
  });

  it('keeps keys apart', async () => {
    await awayFromWindowEnd(5_000);
    const { storages } = replicas();
    const [a, b] = [newKey(), newKey()];
    await storages[0].increment(a, 60_000, 1, 60_000, 'default');
    expect((await storages[0].increment(a, 60_000, 1, 60_000, 'default')).isBlocked).toBe(true);
    expect(await storages[1].increment(b, 60_000, 1, 60_000, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('starts a fresh count when the window ends (windows aligned on the database clock), slices included', async () => {
    // A lease ahead of the pace may hold hits at the end of a window: they expire with it.
    const { storages } = replicas({ sliceHorizonMs: 60_000, sliceShareDivisor: 1 });
    const key = newKey();
    if (windowMsLeft(1_000) < 400) await sleep(windowMsLeft(1_000) + 20);
    const first = await storages[0].increment(key, 1_000, 3, 1_000, 'default');
    expect(first.timeToExpire).toBe(1);
    // Until one is refused: the window is used up (or it ended meanwhile, and the next one counts afresh).
    let refused = false;
    for (let i = 0; i < 10 && !refused; i++) refused = (await storages[i % 2].increment(key, 1_000, 3, 1_000, 'default')).isBlocked;
    await sleep(windowMsLeft(1_000) + 50);
    expect(await storages[0].increment(key, 1_000, 3, 1_000, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
    const windows: Array<{ window_start: Date; hits: number }> = await dataSources[0].query(
      `SELECT window_start, hits FROM rate_limit_windows WHERE key = $1 ORDER BY window_start`,
      [key],
    );
    for (const { window_start, hits } of windows) {
      expect(window_start.getTime() % 1_000).toBe(0);
      expect(hits).toBeLessThanOrEqual(3);
    }
  });

  it('removes ended windows (after the grace period) and keeps current ones', async () => {
    const { storages } = replicas();
    const repository = new RateLimitRepository(dataSources[0]);
    const ended = newKey();
    const current = newKey();
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
