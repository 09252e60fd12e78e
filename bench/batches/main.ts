import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool as PgPool } from 'pg';
import { request } from 'undici';
import { FakeReplicate, startFakeReplicate } from '@gen/testing';
import { runBenchmark } from '../support/cleanup';
import { processesCpuMs } from '../support/cpu';
import type { LoadResult } from '../support/load';
import { commitMeasured, coreCount, loadAverage } from '../support/machine';
import { table } from '../support/markdown';
import { INSTANT_IMAGE, ModeOptions, RunningMode, startDistributedMode, startStandaloneMode } from '../support/modes';
import { cli, sleep } from '../support/processes';
import { benchServers, onlySet, positiveInteger } from '../support/settings';
import { batchFile, batchFileLines, batchJobsFinished, BatchState, createBatch, credits, interactivePhases, isFinal, loopStats, loopWindow, waitBatch } from './batch-client';

/**
 * `npm run bench:batches` (issue 38): a batch of 20,000 lines on a provider-bound model (the
 * Replicate fake, 3 s predictions) on one enterprise account, in standalone then distributed mode.
 * Side by side in one run: interactive sync submits on the SAME account (the instant model, a few
 * connections) before the batch and while it runs at full width, p50/p99 of each; then the batch's
 * end checked from the outside: every custom_id completed once (results file), none in the errors
 * file, one prediction per line at the fake (none lost, none doubled), and credits exact (the balance
 * moved by the batch's price per line plus the interactive jobs' prices, nothing left held).
 */
const servers = benchServers();
const LINES = positiveInteger('BENCH_BATCH_LINES', 20_000);
const PREDICTION_MS = positiveInteger('BENCH_PREDICTION_MS', 3_000);
const PARALLEL = positiveInteger('BENCH_PARALLEL', 500);
const MAX_IN_FLIGHT = positiveInteger('BENCH_BATCH_MAX_IN_FLIGHT', PARALLEL);
const CONNECTIONS = positiveInteger('BENCH_INTERACTIVE_CONNECTIONS', 4);
const SECONDS = positiveInteger('BENCH_INTERACTIVE_SECONDS', 20);
const WORKERS = positiveInteger('BENCH_WORKER_CONCURRENCY', 64);
const LIMIT_SECONDS = positiveInteger('BENCH_LIMIT_SECONDS', 2_400);
const ONLY = onlySet(['standalone', 'distributed']);
const TOKEN = 'r8_bench-batches';
const BATCH_MODEL = 'motion-lite-1';
const run = promisify(execFile);

const log = (line: string) => process.stderr.write(`${line}\n`);
const ms = (value: number) => value.toFixed(1);

async function bindToFake(mode: RunningMode, fake: FakeReplicate): Promise<void> {
  const engine = { engine: 'replicate', baseUrl: fake.url, upstreamModel: 'fake/ok-video', tokenEnv: 'BENCH_REPLICATE_TOKEN', outputOrigins: [fake.cdnUrl], timeouts: { totalMs: 600_000 } };
  await cli(mode.databaseUrl, ['models', 'update', '--id', BATCH_MODEL, '--engine', JSON.stringify(engine)]);
  await sleep(3_500);
}

/** What a line of the batch costs: the model's batch price where it has one. */
async function linePrice(mode: RunningMode, key: string): Promise<number> {
  const response = await request(`${mode.url}/api/v1/models/${BATCH_MODEL}`, { headers: { authorization: `Bearer ${key}` } });
  const model = (await response.body.json()) as { credits: number; batch_credits?: number };
  return model.batch_credits ?? model.credits;
}

/** The interactive load, from a process of its own (interactive-load.ts): this one serves the fake. */
async function interactive(mode: RunningMode, key: string): Promise<LoadResult> {
  const { stdout } = await run(process.execPath, [join(__dirname, 'interactive-load.js'), mode.url, key, String(CONNECTIONS), String(SECONDS)], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as LoadResult;
}

const creates = (fake: FakeReplicate) => fake.calls('POST', /\/predictions$/).length;

interface ModeResult {
  label: string;
  without: LoadResult;
  within: LoadResult;
  /** The service process's GC and event-loop delay in each interactive window (standalone: the one process). */
  loop: [string, string];
  /** Where the interactive jobs' time went in each window, from their rows (`interactivePhases`). */
  phases: [string, string];
  /** The batch's lines that finished during the interactive window while it ran, and the window's seconds. */
  batchInWindow: { lines: number; seconds: number };
  batchRow: string[];
}

async function runMode(label: string, start: (options: ModeOptions) => Promise<RunningMode>): Promise<ModeResult> {
  const fake = await startFakeReplicate({ token: TOKEN, durationMs: PREDICTION_MS });
  log(`- ${label}: starting`);
  const mode = await start({
    generationEnv: { BENCH_REPLICATE_TOKEN: TOKEN, UPSTREAM_ALLOW_PRIVATE_NETWORKS: 'true', PROVIDER_PARKING: 'true', BATCH_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT) },
    parallel: PARALLEL,
  });
  const db = new PgPool({ connectionString: mode.databaseUrl, max: 2 });
  try {
    const key = mode.keys[0];
    await bindToFake(mode, fake);
    const price = await linePrice(mode, key);
    // Standalone's one process answers /metrics on its port; distributed's gateway is not where the batch's work runs.
    const serviceCpu = () => processesCpuMs(mode.processes.map((app) => app.pid));
    const loopOf = async (measure: () => Promise<LoadResult>): Promise<[LoadResult, string, string, { lines: number; seconds: number }]> => {
      const from = new Date();
      const cpuBefore = serviceCpu();
      const before = label === 'standalone' ? await loopStats(mode.url) : undefined;
      const result = await measure();
      const seconds = (Date.now() - from.getTime()) / 1000;
      const cpu = `service CPU ${((serviceCpu() - cpuBefore) / seconds / 10).toFixed(0)} % of a core`;
      const loop = before ? `${loopWindow(before, await loopStats(mode.url), seconds)}; ${cpu}` : cpu;
      const to = new Date();
      return [result, loop, await interactivePhases(db, from, to), { lines: await batchJobsFinished(db, BATCH_MODEL, from, to), seconds }];
    };
    log(`- ${label}: interactive sync submits, no batch (${CONNECTIONS} connections, ${SECONDS} s)`);
    const [without, loopWithout, phasesWithout] = await loopOf(() => interactive(mode, key));

    const before = await credits(mode, key);
    const since = new Date();
    const file = batchFile(LINES, BATCH_MODEL, 'TEXT_TO_VIDEO');
    log(`- ${label}: a batch of ${LINES} lines (${(file.length / 1024 / 1024).toFixed(1)} MB)`);
    const cpu0 = processesCpuMs(mode.processes.map((app) => app.pid));
    const created = await createBatch(mode, key, file);
    const startedAt = Date.now();
    // At full width: as many lines running as the account may run (or the batch ended already).
    await waitBatch(mode, key, created.batch.id, (s) => isFinal(s) || s.request_counts.processing >= Math.min(PARALLEL, MAX_IN_FLIGHT) * 0.8, 300_000);
    log(`- ${label}: interactive sync submits while the batch runs`);
    const [within, loopWithin, phasesWithin, batchInWindow] = await loopOf(() => interactive(mode, key));
    const done: BatchState = await waitBatch(mode, key, created.batch.id, isFinal, LIMIT_SECONDS * 1000);
    const elapsed = (Date.now() - startedAt) / 1000;
    const cpuPerLine = (processesCpuMs(mode.processes.map((app) => app.pid)) - cpu0) / LINES;

    const results = await batchFileLines(mode, key, created.batch.id, 'results');
    const errors = await batchFileLines(mode, key, created.batch.id, 'errors');
    const ids = new Set(results.filter((r) => r.outcome === 'completed').map((r) => r.custom_id));
    const generations = new Set(results.map((r) => r.generation?.id));
    const lost = LINES - ids.size;
    const doubled = creates(fake) - LINES;
    const charged = results.reduce((sum, r) => sum + (r.generation?.credits_charged ?? 0), 0);
    const after = await credits(mode, key);
    const { rows } = await db.query<{ credits: string }>(
      `SELECT COALESCE(sum(credits), 0) AS credits FROM generation.jobs WHERE model_id = $1 AND status = 'completed' AND created_at >= $2`,
      [INSTANT_IMAGE, since],
    );
    const spent = before.available + before.held - (after.available + after.held);
    const expected = LINES * price + Number(rows[0].credits);
    return {
      label,
      without,
      within,
      loop: [loopWithout, loopWithin],
      phases: [phasesWithout, phasesWithin],
      batchInWindow,
      batchRow: [
        label,
        String(LINES),
        `${(created.ms / 1000).toFixed(1)} s`,
        `${elapsed.toFixed(0)} s`,
        (LINES / elapsed).toFixed(0),
        String(fake.peakInFlight()),
        `${done.status}: ${done.request_counts.completed} completed, ${errors.length} in errors`,
        `${ids.size} / ${generations.size}`,
        String(lost),
        String(doubled),
        `${done.credits_charged} (${charged} in results; ${LINES} × ${price} = ${LINES * price})`,
        `${spent} of ${expected} expected, ${after.held} held`,
        `${cpuPerLine.toFixed(2)} ms`,
      ],
    };
  } finally {
    await db.end();
    await mode.stop();
    await fake.close();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  log(`bench:batches on ${coreCount()} CPUs (load average ${loadAverage()}), Node ${process.version}`);
  const results: ModeResult[] = [];
  if (ONLY.has('standalone')) results.push(await runMode('standalone', (o) => startStandaloneMode(servers, WORKERS, 1, o)));
  if (ONLY.has('distributed')) results.push(await runMode('distributed', (o) => startDistributedMode(servers, WORKERS, 1, o)));
  const latency = (r: LoadResult) => `${ms(r.p50)} / ${ms(r.p99)}`;
  process.stdout.write(
    [
      `## bench:batches: ${LINES} lines on the Replicate fake (${PREDICTION_MS} ms predictions), account parallel limit ${PARALLEL}, BATCH_MAX_IN_FLIGHT ${MAX_IN_FLIGHT}`,
      '',
      `Interactive sync submits on the same account (instant model, ${CONNECTIONS} connections, ${SECONDS} s each):`,
      '',
      table(
        ['mode', 'p50 / p99 ms, no batch', 'p50 / p99 ms, batch running', 'req/s no batch', 'req/s batch running', 'not ok (no batch / batch)', 'batch lines finished in the window (lines/s)'],
        results.map((r) => [
          r.label,
          latency(r.without),
          latency(r.within),
          r.without.perSecond.toFixed(0),
          r.within.perSecond.toFixed(0),
          `${r.without.failed} / ${r.within.failed}`,
          `${r.batchInWindow.lines} (${(r.batchInWindow.lines / r.batchInWindow.seconds).toFixed(0)})`,
        ]),
      ),
      '',
      'The service meanwhile (standalone: its process\'s GC, longest event-loop delay and batch feeder passes yielded, from `/metrics`; both modes: the CPU of every service process over the window):',
      '',
      table(['mode', 'no batch', 'batch running'], results.map((r) => [r.label, ...r.loop])),
      '',
      "The interactive jobs' phases from their rows, p50 / p99 / max ms (admitted: `created_at` to `started_at`, the wait for a claim; run: to `completed_at`):",
      '',
      table(['mode', 'no batch', 'batch running'], results.map((r) => [r.label, ...r.phases])),
      '',
      'The batch:',
      '',
      table(
        ['mode', 'lines', 'POST /batches', 'created to final', 'lines/s', 'peak upstream', 'end', 'custom_ids / generations in results', 'lost', 'doubled predictions', 'credits charged', 'balance moved', 'service CPU per line'],
        results.map((r) => r.batchRow),
      ),
      '',
      `(${coreCount()} CPUs, load average ${loadAverage()} at the end, Node ${process.version}; commit ${commitMeasured()}; total ${((Date.now() - started) / 1000).toFixed(0)} s)`,
      '',
    ].join('\n'),
  );
}

runBenchmark('bench:batches', LIMIT_SECONDS, main);
