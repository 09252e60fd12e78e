import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Pool as PgPool } from 'pg';
import { FakeReplicate, startFakeReplicate } from '@gen/testing';
import { runBenchmark } from '../support/cleanup';
import { idleCpuPerSecond, processCpuMs, processesCpuMs } from '../support/cpu';
import { commitMeasured, coreCount, loadAverage } from '../support/machine';
import { table } from '../support/markdown';
import { ModeOptions, RunningMode, startDistributedMode, startStandaloneMode } from '../support/modes';
import { sleep } from '../support/processes';
import { bindToFake, fakeReplicateEnv, jobsProgress, submitJobs, waitJobsFinal } from '../support/provider-jobs';
import { benchServers, onlySet, positiveInteger } from '../support/settings';

/**
 * `npm run bench:providers-scale` (bench/HISTORY.md, "Provider jobs at scale"): one generation
 * replica (standalone, then distributed) against the Replicate fake whose predictions run 3 s on the
 * wall clock, driven over HTTP by 50 connections:
 * - parked (first, on the fresh process): 2,000 jobs whose predictions run long enough that all of
 *   them wait parked at once: RSS with every job parked, memory per parked job, and CPU per status
 *   check (the process's CPU over a window where it only checks, divided by the fake's status reads);
 * - scale (once the parked jobs are final, so that nothing else runs beside it): 2,000 submits; the
 *   time from the last submit until every job is final, the most predictions running upstream at
 *   once (counted by the fake), status reads per job, the generation process's RSS, where the jobs'
 *   time went, and the service's CPU per job;
 * - capped: the same binding with `maxInFlight: 50` (never more than 50 at once on the fake);
 * - callbacks: the scale run with `"callbacks": true` (the fake calls back when each prediction
 *   ends): status reads per job, which the callbacks should keep at one or fewer;
 * - baseline (standalone): 100 jobs with PROVIDER_PARKING=false, the behaviour before parking (each
 *   job polls from inside one of WORKER_CONCURRENCY slots), in the same run.
 * Every database, stream and folder it makes is removed at the end.
 */
const servers = benchServers();
const JOBS = positiveInteger('BENCH_JOBS', 2_000);
const CONNECTIONS = positiveInteger('BENCH_CONNECTIONS', 50);
const PREDICTION_MS = positiveInteger('BENCH_PREDICTION_MS', 3_000);
const PARKED_PREDICTION_MS = positiveInteger('BENCH_PARKED_PREDICTION_MS', 20_000);
const CAPPED_JOBS = positiveInteger('BENCH_CAPPED_JOBS', 300);
const CAP = positiveInteger('BENCH_MAX_IN_FLIGHT', 50);
const CALLBACK_JOBS = positiveInteger('BENCH_CALLBACK_JOBS', JOBS);
const BASELINE_JOBS = positiveInteger('BENCH_BASELINE_JOBS', 100);
const WORKERS = positiveInteger('BENCH_WORKER_CONCURRENCY', 8);
const LIMIT_SECONDS = positiveInteger('BENCH_LIMIT_SECONDS', 900);
const ONLY = onlySet(['baseline', 'standalone', 'distributed']);
/** `BENCH_SCENARIOS`: which runs of each mode (all when unset), to profile one of them alone. */
const SCENARIOS = onlySet(['scale', 'parked', 'capped', 'callbacks'], 'BENCH_SCENARIOS');
const TOKEN = 'r8_bench-providers-scale';
/** The generation process's page size for /proc's statm. */
const PAGE = 4096;

const log = (line: string) => process.stderr.write(`${line}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

function rss(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE;
  } catch {
    return 0;
  }
}

/** The machine's CPU time so far, busy and total (all cores, from /proc/stat), in clock ticks. */
function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const values = fields.map(Number);
  const idle = values[3] + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/**
 * Where the jobs' time went, from their own timestamps: queued (submit to claim), starting (claim to
 * parked, i.e. the upstream submit and its reference stored) and upstream (parked to final: the
 * prediction, the checks and collecting the output); p50 / p95 / max of each, in seconds.
 */
async function stages(db: PgPool, ids: string[]): Promise<string> {
  const { rows } = await db.query<Record<string, number>>(
    `WITH t AS (
       SELECT extract(epoch FROM started_at - created_at) AS queued, extract(epoch FROM upstream_at - started_at) AS starting,
              extract(epoch FROM completed_at - upstream_at) AS upstream
       FROM generation.jobs WHERE id = ANY($1::uuid[]))
     SELECT ${['queued', 'starting', 'upstream']
       .map((c) => `percentile_cont(0.5) WITHIN GROUP (ORDER BY ${c}) AS ${c}_50, percentile_cont(0.95) WITHIN GROUP (ORDER BY ${c}) AS ${c}_95, max(${c}) AS ${c}_max`)
       .join(', ')} FROM t`,
    [ids],
  );
  const r = rows[0];
  const f = (v: number | null) => (v === null ? '-' : Number(v).toFixed(2));
  return ['queued', 'starting', 'upstream'].map((c) => `${c} ${f(r[`${c}_50`])} / ${f(r[`${c}_95`])} / ${f(r[`${c}_max`])}`).join('; ');
}

/** Waits until every job is final; the generation process's peak RSS meanwhile. */
async function waitFinished(db: PgPool, mode: RunningMode, ids: string[], timeoutMs: number): Promise<{ at: number; failed: number; peakRss: number }> {
  let peakRss = 0;
  const done = await waitJobsFinal(db, ids, timeoutMs, () => (peakRss = Math.max(peakRss, rss(mode.generation.pid))));
  return { ...done, peakRss };
}

const statusReads = (fake: FakeReplicate) => fake.calls('GET', /^\/v1\/predictions\/[^/]+$/).length;

interface Row {
  label: string;
  cells: Record<string, string>;
}

async function parkedService(label: string, start: (options: ModeOptions) => Promise<RunningMode>, rows: Row[]): Promise<void> {
  const [fast, long, capped, calling] = await Promise.all([
    startFakeReplicate({ token: TOKEN, durationMs: PREDICTION_MS }),
    startFakeReplicate({ token: TOKEN, durationMs: PARKED_PREDICTION_MS }),
    startFakeReplicate({ token: TOKEN, durationMs: PREDICTION_MS }),
    startFakeReplicate({ token: TOKEN, durationMs: PREDICTION_MS, webhookRetries: 3 }),
  ]);
  log(`- ${label}: starting`);
  const mode = await start({
    generationEnv: { ...fakeReplicateEnv(TOKEN), PROVIDER_PARKING: 'true' },
    parallel: JOBS * 2,
  });
  const db = new PgPool({ connectionString: mode.databaseUrl, max: 2 });
  try {
    await bindToFake(mode, 'motion-lite-1', fast, 'ok-video');
    const idleRss = rss(mode.generation.pid);

    // Parked first, on a fresh process: its RSS is that of the parked jobs, not of an earlier burst's heap.
    if (SCENARIOS.has('parked')) {
      log(`- ${label}: parked, ${JOBS} jobs of ${PARKED_PREDICTION_MS} ms`);
      await bindToFake(mode, 'tone-weaver-1', long, 'ok-audio');
      const beforeRss = rss(mode.generation.pid);
      const parked = await submitJobs(mode, 'tone-weaver-1', 'TEXT_TO_AUDIO', JOBS, CONNECTIONS);
      // Every job waiting upstream, none in a slot: the memory it takes, and the CPU of its checks alone.
      const allParkedBy = Date.now() + PARKED_PREDICTION_MS / 2;
      let p = await jobsProgress(db, parked.ids);
      while (p.parked < JOBS * 0.98 && Date.now() < allParkedBy) {
        await sleep(100);
        p = await jobsProgress(db, parked.ids);
      }
      const parkedRss = rss(mode.generation.pid);
      const window = Math.min(5_000, Math.max(1_000, parked.firstAt + PARKED_PREDICTION_MS - Date.now() - 1_000));
      const cpu0 = processCpuMs(mode.generation.pid);
      const reads0 = statusReads(long);
      await sleep(window);
      const cpuPerCheck = (processCpuMs(mode.generation.pid) - cpu0) / Math.max(1, statusReads(long) - reads0);
      const checksPerSecond = ((statusReads(long) - reads0) * 1000) / window;
      const parkedDone = await waitFinished(db, mode, parked.ids, PARKED_PREDICTION_MS + 300_000);
      rows.push({
        label: `${label}, all parked at once`,
        cells: {
          jobs: String(JOBS),
          submits: `${seconds(parked.lastAt - parked.firstAt)} s`,
          'last submit to all final': `${seconds(parkedDone.at - parked.lastAt)} s`,
          'peak in flight upstream': String(long.peakInFlight()),
          'status reads per job': (statusReads(long) / JOBS).toFixed(2),
          failed: String(parkedDone.failed),
          'RSS idle / peak': `${mb(beforeRss)} / ${mb(parkedDone.peakRss)} MB`,
          'RSS, parked': `${mb(parkedRss)} MB with ${p.parked} parked`,
          'memory per parked job': `${(Math.max(0, parkedRss - beforeRss) / Math.max(1, p.parked) / 1024).toFixed(1)} KB`,
          'CPU per status check': `${cpuPerCheck.toFixed(2)} ms (${checksPerSecond.toFixed(0)} checks/s over ${seconds(window)} s)`,
        },
      });
    }

    // Then the scale run on its own: its CPU per job is its own jobs', not also the status checks of
    // the parked run's jobs (until 29 November they overlapped; bench/HISTORY.md says what that added).
    if (SCENARIOS.has('scale')) {
      log(`- ${label}: scale, ${JOBS} submits of ${PREDICTION_MS} ms predictions at ${CONNECTIONS} connections`);
      const pids = () => mode.processes.map((app) => app.pid);
      const serviceCpu = () => processesCpuMs(pids());
      // What the processes spend with nothing asked of them (polls, timers), as bench:guard takes it off.
      const idle = await idleCpuPerSecond(pids);
      const scaleFrom = performance.now();
      const scaleCpu0 = serviceCpu();
      const machine0 = machineTicks();
      const scale = await submitJobs(mode, 'motion-lite-1', 'TEXT_TO_VIDEO', JOBS, CONNECTIONS);
      const scaleDone = await waitFinished(db, mode, scale.ids, 300_000);
      const scaleCpu = serviceCpu() - scaleCpu0;
      const scaleIdleMs = (idle * (performance.now() - scaleFrom)) / 1000;
      const machine1 = machineTicks();
      const machineBusy = (100 * (machine1.busy - machine0.busy)) / Math.max(1, machine1.total - machine0.total);
      rows.push({
        label: `${label}, parked`,
        cells: {
          jobs: String(JOBS),
          submits: `${seconds(scale.lastAt - scale.firstAt)} s`,
          'last submit to all final': `${seconds(scaleDone.at - scale.lastAt)} s`,
          'peak in flight upstream': String(fast.peakInFlight()),
          'status reads per job': (statusReads(fast) / JOBS).toFixed(2),
          failed: String(scaleDone.failed),
          'RSS idle / peak': `${mb(idleRss)} / ${mb(scaleDone.peakRss)} MB`,
          'stages (s, p50 / p95 / max)': await stages(db, scale.ids),
          'service CPU per job (all its processes)': `${(scaleCpu / JOBS).toFixed(2)} ms`,
          'idle rate off (as bench:guard)': `${(Math.max(0, scaleCpu - scaleIdleMs) / JOBS).toFixed(2)} ms`,
          'machine CPU busy': `${machineBusy.toFixed(0)}%`,
        },
      });
    }

    if (SCENARIOS.has('capped')) {
      log(`- ${label}: capped, ${CAPPED_JOBS} jobs with maxInFlight ${CAP}`);
      await bindToFake(mode, 'mesh-smith-1', capped, 'ok-3d', { maxInFlight: CAP });
      const cappedRun = await submitJobs(mode, 'mesh-smith-1', 'TEXT_TO_3D', CAPPED_JOBS, CONNECTIONS);
      const cappedDone = await waitFinished(db, mode, cappedRun.ids, 600_000);
      rows.push({
        label: `${label}, maxInFlight ${CAP}`,
        cells: {
          jobs: String(CAPPED_JOBS),
          submits: `${seconds(cappedRun.lastAt - cappedRun.firstAt)} s`,
          'last submit to all final': `${seconds(cappedDone.at - cappedRun.lastAt)} s`,
          'peak in flight upstream': String(capped.peakInFlight()),
          'status reads per job': (statusReads(capped) / CAPPED_JOBS).toFixed(2),
          failed: String(cappedDone.failed),
          'RSS idle / peak': `- / ${mb(cappedDone.peakRss)} MB`,
        },
      });
    }

    if (SCENARIOS.has('callbacks')) {
      log(`- ${label}: callbacks on, ${CALLBACK_JOBS} jobs`);
      await bindToFake(mode, 'voice-1', calling, 'ok-audio', { callbacks: true });
      const called = await submitJobs(mode, 'voice-1', 'TEXT_TO_AUDIO', CALLBACK_JOBS, CONNECTIONS);
      const calledDone = await waitFinished(db, mode, called.ids, 600_000);
      const accepted = calling.callbacks.filter((c) => c.status === 200).length;
      rows.push({
        label: `${label}, callbacks on`,
        cells: {
          jobs: String(CALLBACK_JOBS),
          submits: `${seconds(called.lastAt - called.firstAt)} s`,
          'last submit to all final': `${seconds(calledDone.at - called.lastAt)} s`,
          'peak in flight upstream': String(calling.peakInFlight()),
          'status reads per job': `${(statusReads(calling) / CALLBACK_JOBS).toFixed(2)} (${accepted} callbacks accepted)`,
          failed: String(calledDone.failed),
          'RSS idle / peak': `- / ${mb(calledDone.peakRss)} MB`,
        },
      });
    }
  } finally {
    await db.end();
    await mode.stop();
    await Promise.all([fast, long, capped, calling].map((f) => f.close()));
  }
}

async function baseline(rows: Row[]): Promise<void> {
  const fake = await startFakeReplicate({ token: TOKEN, durationMs: PREDICTION_MS });
  log(`- baseline (standalone, PROVIDER_PARKING=false): starting`);
  const mode = await startStandaloneMode(servers, WORKERS, 1, {
    generationEnv: { ...fakeReplicateEnv(TOKEN), PROVIDER_PARKING: 'false' },
    parallel: JOBS * 2,
  });
  const db = new PgPool({ connectionString: mode.databaseUrl, max: 2 });
  try {
    await bindToFake(mode, 'motion-lite-1', fake, 'ok-video');
    const idleRss = rss(mode.generation.pid);
    log(`- baseline: ${BASELINE_JOBS} submits`);
    const run = await submitJobs(mode, 'motion-lite-1', 'TEXT_TO_VIDEO', BASELINE_JOBS, CONNECTIONS);
    const done = await waitFinished(db, mode, run.ids, 600_000);
    rows.push({
      label: `standalone, in a slot (before; PROVIDER_PARKING=false)`,
      cells: {
        jobs: String(BASELINE_JOBS),
        submits: `${seconds(run.lastAt - run.firstAt)} s`,
        'last submit to all final': `${seconds(done.at - run.lastAt)} s`,
        'peak in flight upstream': String(fake.peakInFlight()),
        'status reads per job': (statusReads(fake) / BASELINE_JOBS).toFixed(2),
        failed: String(done.failed),
        'RSS idle / peak': `${mb(idleRss)} / ${mb(done.peakRss)} MB`,
      },
    });
  } finally {
    await db.end();
    await mode.stop();
    await fake.close();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  log(`bench:providers-scale on ${coreCount()} CPUs (load average ${loadAverage()}), Node ${process.version}`);
  const rows: Row[] = [];
  if (ONLY.has('baseline')) await baseline(rows);
  if (ONLY.has('standalone')) await parkedService('standalone', (options) => startStandaloneMode(servers, WORKERS, 1, options), rows);
  if (ONLY.has('distributed')) await parkedService('distributed', (options) => startDistributedMode(servers, WORKERS, 1, options), rows);

  const columns = ['jobs', 'submits', 'last submit to all final', 'peak in flight upstream', 'status reads per job', 'failed', 'RSS idle / peak'];
  const extra = ['RSS, parked', 'memory per parked job', 'CPU per status check'];
  const timing = ['stages (s, p50 / p95 / max)', 'service CPU per job (all its processes)', 'idle rate off (as bench:guard)', 'machine CPU busy'];
  const tableOf = (names: string[], of: Row[]) => (of.length === 0 ? [] : [table(['run', ...names], of.map((r) => [r.label, ...names.map((c) => r.cells[c] ?? '-')])), '']);
  process.stdout.write(
    [
      '',
      `Provider jobs at scale: the Replicate fake, predictions of ${PREDICTION_MS} ms (${PARKED_PREDICTION_MS} ms for "all parked at once"), ` +
        `${CONNECTIONS} connections, one generation replica, WORKER_CONCURRENCY ${WORKERS}`,
      '',
      ...tableOf(columns, rows),
      ...tableOf(extra, rows.filter((r) => r.cells['RSS, parked'])),
      ...tableOf(timing, rows.filter((r) => r.cells[timing[0]])),
      `(${coreCount()} CPUs, load average ${loadAverage()} at the end, Node ${process.version}; commit ${commitMeasured()}; total ${seconds(Date.now() - started)} s)`,
      '',
    ].join('\n'),
  );
}

runBenchmark('bench:providers-scale', LIMIT_SECONDS, main);
