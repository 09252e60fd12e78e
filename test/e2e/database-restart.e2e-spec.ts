import { Client } from 'pg';
import { eventually, http } from '@gen/testing';
import { testModel } from '../support/factories';
import { debianPostgresBin, PgCluster } from '../support/pg-cluster';
import { startStandaloneHarness, StandaloneHarness } from '../support/standalone-harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The gateway's CATALOGUE_MAX_STALE_MS here (default 5 s): the stale-copy cases wait past it. */
const MAX_STALE_MS = 2_000;

/**
 * A PostgreSQL restart under load (docs/operations/recover.md, "PostgreSQL outage"): the server restarts
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
    h = await startStandaloneHarness({ JOB_POLL_INTERVAL_MS: '50', CATALOGUE_MAX_STALE_MS: String(MAX_STALE_MS) }, { models: [testModel({ id: 'quick-image-1', engine: 'instant', synchronous: true, credits: 2, type: 'TEXT_TO_IMAGE' })] });
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
    // Serving again: a submit and a read succeed once the server is back. On another account: the load
    // above may have spent this one's requests per minute (429s, which are answers, not failures).
    const other = await h.account('enterprise', 100);
    const after = await http(h.url, 'POST', '/api/v1/generate', { key: other.key, body: { model: 'quick-image-1', prompt: 'after', type: 'TEXT_TO_IMAGE' } });
    expect(after.status).toBe(200);
    process.stdout.write(`PostgreSQL restarts under load, responses by status: ${JSON.stringify(summary)}\n`);
  }, 90_000);
  /** A session on the test's database (SQL as an operator, or as the test's own tool). */
  const session = async () => {
    const client = new Client({ connectionString: h.database.url });
    await client.connect();
    return client;
  };

  it('runs a read again when the server ends its session mid-query (57P01, as a fast shutdown does): 200, not 503', async () => {
    const { key } = await h.account('pro', 100);
    const submitted = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'quick-image-1', prompt: 'a read', type: 'TEXT_TO_IMAGE' } });
    expect(submitted.status).toBe(200);
    const fresh = await h.account('pro', 100); // a key no gateway cache holds yet: its lookup reads auth.api_keys
    // Each read, and the table it reads through TypeORM or plain SQL (not a prepared statement).
    // Each read, the table it reads through TypeORM or plain SQL (not a prepared statement), and a
    // piece of its SQL (background work on the same table may wait on the lock too: it is left alone).
    const reads = [
      { path: '/api/v1/generations?limit=5', table: 'generation.jobs', sql: '"job"', key },
      { path: `/api/v1/generations/${submitted.body.id}/deliveries`, table: 'webhooks.deliveries', sql: '"DeliveryEntity"', key },
      { path: '/api/v1/credits/ledger?limit=5', table: 'billing.ledger', sql: 'WITH page AS', key },
      { path: '/api/v1/credits', table: 'auth.api_keys', sql: 'WHERE lookup_id', key: fresh.key },
    ];
    const admin = await session();
    try {
      for (const read of reads) {
        // The table locked: the read waits on it, in flight, until its session is ended under it.
        const locker = await session();
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${read.table} IN ACCESS EXCLUSIVE MODE`);
        const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        const pending = http(h.url, 'GET', read.path, { key: read.key });
        const waiting = await eventually(
          async () =>
            (
              await admin.query<{ pid: number }>(
                `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1 AND strpos(query, $2) > 0`,
                [lockerPid, read.sql],
              )
            ).rows,
          (rows) => rows.length > 0,
          10_000,
        );
        for (const { pid } of waiting) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        await locker.query('ROLLBACK');
        await locker.end();
        const res = await pending;
        expect({ path: read.path, status: res.status, code: res.body?.error?.code }).toEqual({ path: read.path, status: 200, code: undefined });
      }
    } finally {
      await admin.end();
    }
  });

  it('never serves a catalogue copy older than CATALOGUE_MAX_STALE_MS when no notice comes', async () => {
    const { key } = await h.account('pro', 100);
    const submit = () => http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'quick-image-1', prompt: 'a price', type: 'TEXT_TO_IMAGE' } });
    const sql = await session();
    try {
      // A change of nothing still announces itself (a statement trigger): the gateway reads afresh now.
      await sql.query(`UPDATE generation.models SET credits = credits WHERE false`);
      await sleep(100);
      const readAt = Date.now();
      const before = await submit();
      expect({ status: before.status, charged: before.body.credits_charged }).toEqual({ status: 200, charged: 2 });
      // The price changed with no notice at all (triggers off in this session: no NOTIFY, no broadcast).
      await sql.query(`SET session_replication_role = replica`);
      await sql.query(`UPDATE generation.models SET credits = 3, minimum_credits = 3 WHERE id = 'quick-image-1'`);
      await sql.query(`RESET session_replication_role`);
      // Within the bound the copy serves (so no notice reached the gateway)...
      const within = await submit();
      expect(Date.now() - readAt).toBeLessThan(MAX_STALE_MS / 2);
      expect(within.body.credits_charged).toBe(2);
      // ...and past it, after an idle moment, the first request waits for a fresh read instead of being served the old copy.
      await sleep(readAt + MAX_STALE_MS + 200 - Date.now());
      const after = await submit();
      expect({ status: after.status, charged: after.body.credits_charged }).toEqual({ status: 200, charged: 3 });
    } finally {
      await sql.query(`UPDATE generation.models SET credits = 2, minimum_credits = 2 WHERE id = 'quick-image-1'`);
      await sql.end();
    }
  });

  it('a copy too old while the database cannot answer: 503 with Retry-After within a bounded time, then served again', async () => {
    const { key } = await h.account('pro', 100);
    expect((await http(h.url, 'GET', '/api/v1/models', { key })).status).toBe(200);
    cluster.stop();
    try {
      await sleep(MAX_STALE_MS + 200);
      const began = Date.now();
      const res = await http(h.url, 'GET', '/api/v1/models', { key });
      const tookMs = Date.now() - began;
      expect({ status: res.status, code: res.body?.error?.code, retryAfter: res.headers.get('retry-after') }).toEqual({
        status: 503,
        code: 'service_unavailable',
        retryAfter: expect.stringMatching(/^\d+$/),
      });
      // Bounded: the fresh read's retries, then the answer (not a hang until the client gives up).
      expect(tookMs).toBeLessThan(15_000);
    } finally {
      cluster.start();
    }
    const back = await eventually(() => http(h.url, 'GET', '/api/v1/models', { key }), (r) => r.status === 200, 20_000, 250);
    expect(back.status).toBe(200);
  }, 60_000);
});
