import type { DataSource } from 'typeorm';
import { createTestDatabase, FakeReplicate, startFakeReplicate, TestDatabase } from '@gen/testing';
import { MetricsRegistry } from '@gen/observability';
import { openGenerationDatabase } from '../generation.database';
import type { GenerationSettings } from '../config/generation.tokens';
import { UpstreamMetrics } from '../metrics/upstream-metrics';
import { BindingLimits } from './binding-limits.service';
import { ParkedJobsRepository } from './parked-jobs.repository';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The most timestamps (ms) that fall in any window `[t, t + spanMs)`. */
function busiest(times: readonly number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= spanMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * Integration (real PostgreSQL, the Replicate fake): a binding's request rate and its shared backoff
 * hold over two replicas (two DataSources, each with its own `BindingLimits`, as two generation
 * processes have), counted by the fake itself (docs/design/jobs.md, "Binding limits").
 */
describe('BindingLimits over two replicas (PostgreSQL)', () => {
  let database: TestDatabase;
  const sources: DataSource[] = [];
  const replicas: BindingLimits[] = [];
  let fake: FakeReplicate;
  const token = 'r8_limits-token';
  const settings = { engineTimeoutMs: 120_000 } as GenerationSettings;

  beforeAll(async () => {
    database = await createTestDatabase('binding_limits');
    fake = await startFakeReplicate({ token });
    for (let i = 0; i < 2; i++) {
      const db = await openGenerationDatabase(database.url, 6);
      sources.push(db);
      replicas.push(new BindingLimits(new ParkedJobsRepository(db), new UpstreamMetrics(new MetricsRegistry('generation', { defaultMetrics: false })), settings));
    }
  });
  afterAll(async () => {
    await Promise.all(sources.map((db) => db.destroy()));
    await database?.drop();
    await fake?.close();
  });

  /** One call to the provider (a status read: the fake records it with its time). */
  const call = () => fetch(`${fake.url}/v1/predictions/none`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.arrayBuffer());

  it('maxRequestsPerSecond 10: four callers on each of two replicas, as fast as their permits allow, never make the provider see more', async () => {
    const binding = 'replicate:REPLICATE_API_TOKEN@rate-test';
    const limits = { maxInFlight: null, maxRequestsPerSecond: 10 };
    const RUN_MS = 3_200;
    const before = fake.requests.length;
    const made = [0, 0];
    const until = Date.now() + RUN_MS;
    const caller = async (replica: number) => {
      while (Date.now() < until) {
        if (await replicas[replica].permit(binding, limits)) {
          made[replica]++;
          await call();
        } else {
          await sleep(10);
        }
      }
    };
    await Promise.all([0, 0, 0, 0, 1, 1, 1, 1].map(caller));
    const times = fake.requests.slice(before).map((r) => r.at);
    expect(times.length).toBe(made[0] + made[1]);
    // Both replicas were served from the one shared window.
    expect(made[0]).toBeGreaterThan(0);
    expect(made[1]).toBeGreaterThan(0);
    // A fixed window of a second restarted by its first call after the last one ended: any second
    // holds at most the end of one window and the start of the next, any k seconds (k + 1) windows.
    expect(busiest(times, 1_000)).toBeLessThanOrEqual(20);
    expect(busiest(times, 3_000)).toBeLessThanOrEqual(40);
    expect(times.length).toBeLessThanOrEqual(10 * (Math.ceil(RUN_MS / 1000) + 1));
    // Not starved either: close to the rate over the run.
    expect(times.length).toBeGreaterThanOrEqual(20);
  });

  it("a 429 on one replica backs off the whole binding on both, for its Retry-After; other bindings go on", async () => {
    const binding = 'replicate:REPLICATE_API_TOKEN@backoff-test';
    const other = 'replicate:OTHER_TOKEN@backoff-test';
    const limits = { maxInFlight: null, maxRequestsPerSecond: 100 };
    expect(await replicas[0].permit(binding, limits)).toBe(true);
    expect(await replicas[1].permit(binding, limits)).toBe(true);

    const throttledAt = Date.now();
    replicas[0].throttled(binding, 1_500);
    // At once on the replica that met the 429, for every job of the binding.
    expect(await replicas[0].permit(binding, limits)).toBe(false);
    expect(replicas[0].blockedBindings()).toContain(binding);
    // The other replica reads the shared backoff (its scheduler does every second), and then refuses
    // too, even a permit of the window it would otherwise take from the database.
    await sleep(100);
    await replicas[1].refresh();
    expect(replicas[1].backingOff()).toEqual([binding]);
    expect(await replicas[1].permit(binding, limits)).toBe(false);
    expect(await replicas[1].permit(binding, { maxInFlight: null, maxRequestsPerSecond: null })).toBe(false);
    // Another binding (another account) is not slowed.
    expect(await replicas[1].permit(other, limits)).toBe(true);
    // The backoff ends when the Retry-After does, on both.
    await sleep(Math.max(0, throttledAt + 1_600 - Date.now()));
    expect(await replicas[0].permit(binding, limits)).toBe(true);
    expect(await replicas[1].permit(binding, limits)).toBe(true);
    expect(replicas[1].backingOff()).toEqual([]);
  });

  it('a replica that missed the 429 is refused permits by the shared window itself, before it refreshes', async () => {
    const binding = 'replicate:REPLICATE_API_TOKEN@window-test';
    const limits = { maxInFlight: null, maxRequestsPerSecond: 10 };
    replicas[0].throttled(binding, 1_000);
    await sleep(100); // the backoff is written (best effort, not awaited by the caller)
    // Replica 1 never refreshed: the permit it asks the database for is refused, with the backoff's end.
    expect(await replicas[1].permit(binding, limits)).toBe(false);
    expect(replicas[1].backingOff()).toContain(binding);
  });
});
