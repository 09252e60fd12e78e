import { http } from '@gen/testing';
import { testModel } from '../support/factories';
import { debianPostgresBin, PgCluster } from '../support/pg-cluster';
import { startStandaloneHarness, StandaloneHarness } from '../support/standalone-harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A PostgreSQL restart under load (docs/operations.md, "PostgreSQL outage"): the server restarts
 * with `pg_ctl restart -m fast` (sessions terminated: 57P01, then refused while it starts: 57P03,
 * ECONNREFUSED) and `-m immediate` (no shutdown checkpoint, crash recovery). Requests that meet it
 * are retried where that is safe and otherwise answered `503` with `Retry-After`; none is `500`.
 * The cluster is the test's own (initdb and pg_ctl from the Debian packages), never the suite's.
 */
describe('a PostgreSQL restart under load (standalone on its own cluster)', () => {
  let cluster: PgCluster;
  let h: StandaloneHarness;
  const suiteAdminUrl = process.env.TEST_PG_ADMIN_URL;

  beforeAll(async () => {
    const bin = debianPostgresBin();
    if (!bin) throw new Error('This spec needs the Debian PostgreSQL server packages (/usr/lib/postgresql/<major>/bin/pg_ctl).');
    cluster = await PgCluster.create(bin);
    // The harness makes its database on the suite's server: this one's, for this file.
    process.env.TEST_PG_ADMIN_URL = cluster.url;
    // An engine that costs no CPU: the load is requests and their database work, not image encoding.
    h = await startStandaloneHarness({ JOB_POLL_INTERVAL_MS: '50' }, { models: [testModel({ id: 'quick-image-1', engine: 'instant', synchronous: true, credits: 2, type: 'TEXT_TO_IMAGE' })] });
  }, 120_000);
  afterAll(async () => {
    await h?.close().catch(() => undefined);
    process.env.TEST_PG_ADMIN_URL = suiteAdminUrl;
    cluster?.remove();
  }, 60_000);

  it('answers no 500 through a fast and an immediate restart, and serves again after each', async () => {
    const { key } = await h.account('enterprise', 1_000_000);
    const statuses = new Map<number, number>();
    const unavailable: Array<{ status: number; retryAfter: string | null; code: string | undefined }> = [];
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    let running = true;
    const client = async () => {
      while (running) {
        const calls = [
          () => http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'quick-image-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' } }),
          () => http(h.url, 'GET', '/api/v1/credits', { key }),
          () => http(h.url, 'GET', '/api/v1/generations?limit=5', { key }),
          () => http(h.url, 'GET', '/api/v1/models', { key }),
        ];
        for (const call of calls) {
          const res = await call().catch(() => ({ status: 0, headers: new Headers(), body: undefined }));
          count(res.status);
          if (res.status === 503) unavailable.push({ status: res.status, retryAfter: res.headers.get('retry-after'), code: res.body?.error?.code });
        }
      }
    };
    const clients = Array.from({ length: 10 }, client);
    await sleep(1_500);
    for (const mode of ['fast', 'immediate', 'fast', 'immediate'] as const) {
      cluster.restart(mode);
      await sleep(1_500);
    }
    running = false;
    await Promise.all(clients);

    const summary = Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
    // Every request was answered (no dropped connection: status 0), none with a 500.
    expect({ 500: summary[500] ?? 0, dropped: summary[0] ?? 0 }).toEqual({ 500: 0, dropped: 0 });
    for (const refusal of unavailable) expect(refusal).toEqual({ status: 503, retryAfter: expect.stringMatching(/^\d+$/), code: 'service_unavailable' });
    expect(summary[200] ?? 0).toBeGreaterThan(20);
    // Serving again: a submit and a read succeed once the server is back.
    const after = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'quick-image-1', prompt: 'after', type: 'TEXT_TO_IMAGE' } });
    expect(after.status).toBe(200);
    process.stdout.write(`PostgreSQL restarts under load, responses by status: ${JSON.stringify(summary)}\n`);
  }, 90_000);
});
