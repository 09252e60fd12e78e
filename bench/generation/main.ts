import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { claimBenchmarks, ClaimResult } from './claims';
import { LoadResult, syncImageLoad } from './load';
import { BenchServers, RunningMode, startDistributedMode, startStandaloneMode } from './modes';

/**
 * `npm run bench:generation` (docs/benchmarks.md): sync image generations per second end to end in
 * standalone and distributed mode with the instant engine, and the job-claim throughput of the queue
 * alone next to a bare SKIP LOCKED loop, on the PostgreSQL server and NATS of this machine. Every
 * database, stream and folder it makes is removed at the end. Bounded: about a minute.
 */
const env = process.env;
const servers: BenchServers = {
  pgAdminUrl: env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222',
};
const number = (name: string, fallback: number) => {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const HTTP_SECONDS = number('BENCH_SECONDS', 6);
const WARMUP_SECONDS = number('BENCH_WARMUP_SECONDS', 2);
const CLAIM_SECONDS = number('BENCH_CLAIM_SECONDS', 3);
const CONCURRENCY = number('BENCH_CONCURRENCY', 32);
const WORKERS = number('BENCH_WORKER_CONCURRENCY', 32);
const CLAIMERS = number('BENCH_CLAIM_WORKERS', 8);
const ACCOUNTS = number('BENCH_ACCOUNTS', 4);
/** A subset of `claims,standalone,distributed` (all by default), e.g. while tuning one of them. */
const ONLY = new Set((env.BENCH_ONLY ?? 'claims,standalone,distributed').split(',').map((s) => s.trim()));

const log = (line: string) => process.stderr.write(`${line}\n`);
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

async function endToEnd(label: string, start: () => Promise<RunningMode>): Promise<{ mode: RunningMode; result: LoadResult }> {
  log(`- ${label}: starting`);
  const mode = await start();
  try {
    log(`- ${label}: ${CONCURRENCY} clients, ${WARMUP_SECONDS} s warm-up + ${HTTP_SECONDS} s measured`);
    const result = await syncImageLoad(mode.url, mode.keys, CONCURRENCY, WARMUP_SECONDS, HTTP_SECONDS);
    return { mode, result };
  } finally {
    await mode.stop();
  }
}

/** The whole run is bounded: past this, it stops (children are killed on exit) and fails. */
const LIMIT_SECONDS = number('BENCH_LIMIT_SECONDS', 90);

async function main(): Promise<void> {
  const started = Date.now();
  setTimeout(() => {
    process.stderr.write(`bench:generation: still running after ${LIMIT_SECONDS} s; stopping\n`);
    process.exit(2);
  }, LIMIT_SECONDS * 1000).unref();
  log(`bench:generation on ${cpus().length} CPUs (load average ${loadavg()[0].toFixed(1)}), Node ${process.version}`);
  let claims: ClaimResult[] = [];
  if (ONLY.has('claims')) {
    log(`- claims: ${CLAIMERS} workers, ${CLAIM_SECONDS} s per run`);
    claims = await claimBenchmarks(servers.pgAdminUrl, CLAIM_SECONDS, CLAIMERS);
  }
  const modes = [];
  if (ONLY.has('standalone')) modes.push(await endToEnd('standalone', () => startStandaloneMode(servers, WORKERS, ACCOUNTS)));
  if (ONLY.has('distributed')) modes.push(await endToEnd('distributed', () => startDistributedMode(servers, WORKERS, ACCOUNTS)));

  const lines = [
    '',
    `Sync image generations end to end (POST /api/v1/generate, pixel-flux-1 on the instant engine, ${CONCURRENCY} concurrent clients over ${ACCOUNTS} enterprise account${ACCOUNTS === 1 ? '' : 's'}, ${HTTP_SECONDS} s)`,
    '',
    '| mode | generations/s | completed | not completed | p50 ms | p95 ms | p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...modes.map(
      ({ mode, result }) =>
        `| ${mode.description} | ${fixed(result.perSecond, 1)} | ${result.ok} | ${result.errors}${result.errors ? ` (${Object.entries(result.statuses).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''} | ${fixed(result.p50, 1)} | ${fixed(result.p95, 1)} | ${fixed(result.p99, 1)} |`,
    ),
    '',
    `Job claims on the same PostgreSQL (claim + mark done, ${CLAIMERS} concurrent workers, ${CLAIM_SECONDS} s each)`,
    '',
    '| claim | jobs | jobs/s |',
    '|---|---:|---:|',
    ...claims.map((c) => `| ${c.name} | ${c.jobs} | ${fixed(c.perSecond)} |`),
    '',
    `(${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end, Node ${process.version}, PostgreSQL at ${new URL(servers.pgAdminUrl).host}, NATS at ${new URL(servers.natsUrl).host}; total ${fixed((Date.now() - started) / 1000, 1)} s)`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:generation failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
