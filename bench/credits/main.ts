import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { Pool } from 'undici';
import { openBillingDatabase } from '@gen/billing';
// The repository itself (not part of billing's public surface): this benchmark measures it alone.
import { BillingAccountsRepository } from '../../apps/billing/src/accounts/billing-accounts.repository';
import { HoldsRepository } from '../../apps/billing/src/holds/holds.repository';
import { HoldsWriter } from '../../apps/billing/src/holds/holds.writer';
import { LedgerRepository } from '../../apps/billing/src/ledger/ledger.repository';
import { dropDatabase, ensureDatabase } from '@gen/persistence';
import { httpOperation, measure, Measurement } from './load';

/**
 * `npm run bench:credits`: what a debit costs at each layer, in one run, on one PostgreSQL server
 * (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres) in a temporary database
 * dropped afterwards:
 *   1. billing alone: HoldsWriter.reserve + settle(capture), in process, no HTTP (one account,
 *      then spread over 100 accounts);
 *   2. the floor: a bare Fastify route doing one `UPDATE ... RETURNING` (a separate process);
 *   3. POST /api/v1/generate on standalone with instant engines (a separate process), for an image
 *      model (the request waits for the job: API key, rate limiter, plan, reserve, queue, claim,
 *      engine, finish) and for an audio model (answered once queued: 202).
 * Apart from the spread billing case, everything debits one account (one hot row). BENCH_SECONDS (default 5) per case after a 1 s warm-up,
 * BENCH_CONCURRENCY (default 32) requests in flight.
 */
const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = positive('BENCH_SECONDS', 5);
const CONCURRENCY = positive('BENCH_CONCURRENCY', 32);
const timing = { concurrency: CONCURRENCY, durationMs: SECONDS * 1000, warmupMs: 1000 };

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 600) throw new Error(`${name} must be an integer from 1 to 600 (got "${raw}")`);
  return value;
}

interface Row {
  name: string;
  result: Measurement;
}

/** Starts one of servers.ts's servers and resolves with the JSON line it prints when ready. */
async function startServer<T>(kind: 'floor' | 'standalone', databaseUrl: string): Promise<{ child: ChildProcess; ready: T }> {
  const child = spawn(process.execPath, [join(__dirname, 'servers.js'), kind, databaseUrl], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' },
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`${kind} server exited (code ${code}) before it was ready`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as T);
    });
  });
  return { child, ready };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Reserve + capture straight on the holds writer and repository, on one account (hot row) and spread over 100. */
async function billingAlone(databaseUrl: string): Promise<{ hot: Measurement; spread: Measurement; consistent: boolean }> {
  const dataSource = await openBillingDatabase(databaseUrl, 20);
  try {
    const holds = new HoldsWriter(new HoldsRepository(dataSource));
    const accountRows = new BillingAccountsRepository(dataSource);
    const ledgerRows = new LedgerRepository(dataSource);
    const accounts = Array.from({ length: 100 }, () => randomUUID());
    for (const accountId of accounts) {
      await accountRows.openAccount(accountId, 'enterprise', { rpm: 1_000_000, parallel: 1_000 }, 1_000_000_000);
    }
    const debit = (pick: () => string) => async () => {
      const accountId = pick();
      const jobId = randomUUID();
      const reserved = await holds.reserve(accountId, jobId, 4, 4);
      if (reserved.kind !== 'reserved') return reserved.kind;
      const settled = await holds.settle(jobId, 'capture', null);
      return settled.kind === 'settled' ? 'ok' : settled.kind;
    };
    const hot = await measure(debit(() => accounts[0]), timing);
    const spread = await measure(debit(() => accounts[Math.floor(Math.random() * accounts.length)]), timing);
    let consistent = true;
    for (const accountId of accounts) {
      const account = await accountRows.findAccount(accountId);
      const ledger = await ledgerRows.ledgerTotals(accountId);
      consistent &&= account !== null && Number(account.available) === ledger.available && Number(account.held) === ledger.held;
    }
    return { hot, spread, consistent };
  } finally {
    await dataSource.destroy();
  }
}

async function floor(databaseUrl: string): Promise<Measurement> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`CREATE TABLE bench_floor (id integer PRIMARY KEY, available bigint NOT NULL CHECK (available >= 0))`);
  await client.query(`INSERT INTO bench_floor VALUES (1, 1000000000000)`);
  await client.end();
  const { child, ready } = await startServer<{ url: string }>('floor', databaseUrl);
  const pool = new Pool(ready.url, { connections: CONCURRENCY });
  try {
    return await measure(httpOperation(pool, { method: 'POST', path: '/debit' }, (s) => s === 200), timing);
  } finally {
    await pool.close();
    await stopServer(child);
  }
}

interface ApiResults {
  /** A synchronous image model: the request waits for the job (queue, claim, engine, finish): 200. */
  sync: Measurement;
  /** An asynchronous audio model: the request returns once the job is queued: 202. */
  queued: Measurement;
  /** GET /api/v1/models: API key and rate limiter only (cached catalogue and plan), no debit. */
  read: Measurement;
  consistent: boolean;
  jobs: number;
}

async function generate(databaseUrl: string): Promise<ApiResults> {
  const { child, ready } = await startServer<{ url: string; key: string }>('standalone', databaseUrl);
  const pool = new Pool(ready.url, { connections: CONCURRENCY });
  const post = (body: object, status: number) =>
    httpOperation(
      pool,
      {
        method: 'POST',
        path: '/api/v1/generate',
        headers: { authorization: `Bearer ${ready.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
      (s) => s === status,
    );
  let sync: Measurement;
  let queued: Measurement;
  let read: Measurement;
  try {
    read = await measure(
      httpOperation(pool, { method: 'GET', path: '/api/v1/models', headers: { authorization: `Bearer ${ready.key}` } }, (s) => s === 200),
      timing,
    );
    sync = await measure(post({ model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' }, 200), timing);
    queued = await measure(post({ model: 'tone-weaver-1', prompt: 'rain on a tin roof', type: 'TEXT_TO_AUDIO' }, 202), timing);
  } finally {
    await pool.close();
    await stopServer(child);
  }
  // Money stays exact under the load: every balance equals its ledger, nothing is negative.
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ mismatched: string; jobs: string }>(
      `SELECT (SELECT count(*) FROM billing.accounts a
               CROSS JOIN LATERAL (
                 SELECT coalesce(sum(available_delta), 0) AS available, coalesce(sum(held_delta), 0) AS held
                 FROM billing.ledger l WHERE l.account_id = a.account_id) ledger
               WHERE a.available < 0 OR a.held < 0 OR a.available <> ledger.available OR a.held <> ledger.held) AS mismatched,
              (SELECT count(*) FROM generation.jobs) AS jobs`,
    );
    return { sync, queued, read, consistent: Number(rows[0].mismatched) === 0, jobs: Number(rows[0].jobs) };
  } finally {
    await client.end();
  }
}

function table(rows: Row[], floorOps: number): string {
  const header = ['case', 'ops/s', 'p50 ms', 'p99 ms', 'failed', 'vs floor'];
  const body = rows.map(({ name, result }) => [
    name,
    result.opsPerSecond.toFixed(0),
    result.p50Ms.toFixed(2),
    result.p99Ms.toFixed(2),
    String(result.errors),
    `${(result.opsPerSecond / floorOps).toFixed(2)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const database = `bench_credits_${randomBytes(4).toString('hex')}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  const started = Date.now();
  await ensureDatabase(ADMIN_URL, database);
  const dropOnSignal = () => {
    void dropDatabase(ADMIN_URL, database).finally(() => process.exit(130));
  };
  process.once('SIGINT', dropOnSignal);
  try {
    process.stdout.write(
      `bench/credits: ${SECONDS} s per case after 1 s warm-up, ${CONCURRENCY} in flight, ${cpus().length} CPUs, ` +
        `database ${database} on ${url.host}\n`,
    );
    const billing = await billingAlone(databaseUrl);
    process.stdout.write('  1/3 billing alone done\n');
    const bare = await floor(databaseUrl);
    process.stdout.write('  2/3 bare Fastify UPDATE ... RETURNING done\n');
    const api = await generate(databaseUrl);
    process.stdout.write('  3/3 standalone: GET /models, POST /generate (image, audio) done\n\n');

    const rows: Row[] = [
      { name: 'billing alone: reserve + capture, one account (in process)', result: billing.hot },
      { name: 'billing alone: reserve + capture, 100 accounts (in process)', result: billing.spread },
      { name: 'floor: bare Fastify route, one UPDATE ... RETURNING', result: bare },
      { name: 'POST /api/v1/generate, image model, instant engine: 200 finished', result: api.sync },
      { name: 'POST /api/v1/generate, audio model, instant engine: 202 queued', result: api.queued },
      { name: 'reference: GET /api/v1/models (API key + rate limiter, no debit)', result: api.read },
    ];
    process.stdout.write(table(rows, bare.opsPerSecond) + '\n\n');
    const ratio = (m: Measurement) => `${(m.opsPerSecond / bare.opsPerSecond).toFixed(3)} (1/${(bare.opsPerSecond / m.opsPerSecond).toFixed(1)})`;
    process.stdout.write(
      `ratio to the floor: POST /generate finished ${ratio(api.sync)}, queued ${ratio(api.queued)}; ` +
        `billing reserve + capture ${ratio(billing.hot)} (one account), ${ratio(billing.spread)} (100 accounts)\n`,
    );
    process.stdout.write(
      `checks: billing-alone ledger ${billing.consistent ? 'consistent' : 'INCONSISTENT'}; ` +
        `after the API run ${api.jobs} jobs, every balance equals its ledger: ${api.consistent ? 'yes' : 'NO'}\n`,
    );
    const failures = rows.flatMap((r) => Object.entries(r.result.outcomes).filter(([k]) => k !== 'ok').map(([k, n]) => `${r.name}: ${n} x ${k}`));
    if (failures.length > 0) process.stdout.write(`failed operations:\n  ${failures.join('\n  ')}\n`);
    if (!billing.consistent || !api.consistent) process.exitCode = 1;
  } finally {
    await dropDatabase(ADMIN_URL, database);
    process.stdout.write(`dropped ${database}; total ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench/credits failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
