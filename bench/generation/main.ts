import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { syncGenerateOutcome, syncGenerateRequest } from '../support/api-requests';
import { runBenchmark } from '../support/cleanup';
import { LoadResult, runLoad } from '../support/load';
import { RunningMode, startDistributedMode, startStandaloneMode } from '../support/modes';
import { benchServers, onlySet, positiveNumber as number } from '../support/settings';
import { claimBenchmarks, ClaimResult } from './claims';

/**
 * `npm run bench:generation` (bench/HISTORY.md): sync image generations per second end to end in
 * standalone and distributed mode with the instant engine, and the job-claim throughput of the queue
 * alone next to a bare SKIP LOCKED loop, on the PostgreSQL server and NATS of this machine. Every
 * database, stream and folder it makes is removed at the end. Bounded: a watchdog (BENCH_LIMIT_SECONDS, 180 s)
 * stops it, and cleans up, on a machine too loaded to finish.
 */
const servers = benchServers();
const HTTP_SECONDS = number('BENCH_SECONDS', 6);
const WARMUP_SECONDS = number('BENCH_WARMUP_SECONDS', 2);
const CLAIM_SECONDS = number('BENCH_CLAIM_SECONDS', 3);
const CONCURRENCY = number('BENCH_CONCURRENCY', 32);
const WORKERS = number('BENCH_WORKER_CONCURRENCY', 32);
const CLAIMERS = number('BENCH_CLAIM_WORKERS', 8);
const ACCOUNTS = number('BENCH_ACCOUNTS', 4);
/** A subset of `claims,standalone,distributed` (all by default), e.g. while tuning one of them. */
const ONLY = onlySet(['claims', 'standalone', 'distributed']);

const log = (line: string) => process.stderr.write(`${line}\n`);
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

async function endToEnd(label: string, start: () => Promise<RunningMode>): Promise<{ mode: RunningMode; result: LoadResult }> {
  log(`- ${label}: starting`);
  const mode = await start();
  try {
    log(`- ${label}: ${CONCURRENCY} clients, ${WARMUP_SECONDS} s warm-up + ${HTTP_SECONDS} s measured`);
    const result = await runLoad(mode.url, {
      connections: CONCURRENCY,
      warmupSeconds: WARMUP_SECONDS,
      seconds: HTTP_SECONDS,
      request: (lane) => syncGenerateRequest(mode.keys[lane % mode.keys.length]),
      outcome: syncGenerateOutcome,
    });
    return { mode, result };
  } finally {
    await mode.stop();
  }
}

/** The whole run is bounded: past this, it stops (children are killed on exit) and fails. */
const LIMIT_SECONDS = number('BENCH_LIMIT_SECONDS', 180);

async function main(): Promise<void> {
  const started = Date.now();
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
        `| ${mode.description} | ${fixed(result.perSecond, 1)} | ${result.ok} | ${result.failed}${result.failed ? ` (${Object.entries(result.failures).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''} | ${fixed(result.p50, 1)} | ${fixed(result.p95, 1)} | ${fixed(result.p99, 1)} |`,
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

runBenchmark('bench:generation', LIMIT_SECONDS, main);
