import { request } from 'undici';
import type { Pool as PgPool } from 'pg';
import { INSTANT_IMAGE, RunningMode } from '../support/modes';
import { sleep } from '../support/processes';

/** The parts of a batch (GET /api/v1/batches/{id}) the benchmark reads. */
export interface BatchState {
  id: string;
  status: string;
  request_counts: Record<string, number>;
  credits_charged: number;
}

const FINAL = new Set(['completed', 'canceled', 'expired']);

async function call(mode: RunningMode, key: string, method: 'GET' | 'POST', path: string, body?: string, contentType?: string): Promise<{ status: number; text: string }> {
  const response = await request(`${mode.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(contentType ? { 'content-type': contentType } : {}) },
    body,
    headersTimeout: 300_000,
    bodyTimeout: 300_000,
  });
  return { status: response.statusCode, text: await response.body.text() };
}

/** The JSONL file of `lines` generate requests of `model`, each with its own custom_id (`line-<n>`). */
export function batchFile(lines: number, model: string, type: string): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) out.push(JSON.stringify({ custom_id: `line-${i}`, body: { model, prompt: `product shot ${i}`, type } }));
  return `${out.join('\n')}\n`;
}

/** POST /api/v1/batches with the file as the body; the created batch and how long the call took. */
export async function createBatch(mode: RunningMode, key: string, file: string): Promise<{ batch: BatchState; ms: number }> {
  const started = Date.now();
  const answer = await call(mode, key, 'POST', '/api/v1/batches?completion_window=24h', file, 'application/jsonl');
  if (answer.status !== 201) throw new Error(`POST /api/v1/batches answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return { batch: JSON.parse(answer.text) as BatchState, ms: Date.now() - started };
}

export async function getBatch(mode: RunningMode, key: string, id: string): Promise<BatchState> {
  const answer = await call(mode, key, 'GET', `/api/v1/batches/${id}`);
  if (answer.status !== 200) throw new Error(`GET /api/v1/batches/${id} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text) as BatchState;
}

/** Polls the batch until `done(state)`; throws after `timeoutMs`. */
export async function waitBatch(mode: RunningMode, key: string, id: string, done: (state: BatchState) => boolean, timeoutMs: number): Promise<BatchState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await getBatch(mode, key, id);
    if (done(state)) return state;
    if (Date.now() > deadline) throw new Error(`batch ${id} not there after ${timeoutMs} ms: ${JSON.stringify(state.request_counts)}`);
    await sleep(1_000);
  }
}

export const isFinal = (state: BatchState) => FINAL.has(state.status);

/** Every line of a batch's results or errors file, parsed. */
export async function batchFileLines(mode: RunningMode, key: string, id: string, file: 'results' | 'errors'): Promise<Array<{ line: number; custom_id: string | null; outcome: string; generation: { id: string; credits_charged: number } | null }>> {
  const answer = await call(mode, key, 'GET', `/api/v1/batches/${id}/${file}`);
  if (answer.status !== 200) throw new Error(`GET /api/v1/batches/${id}/${file} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer.text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** GET /api/v1/credits: what the account can spend and what its unfinished jobs hold. */
export async function credits(mode: RunningMode, key: string): Promise<{ available: number; held: number }> {
  const answer = await call(mode, key, 'GET', '/api/v1/credits');
  if (answer.status !== 200) throw new Error(`GET /api/v1/credits answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text) as { available: number; held: number };
}

/** The service process's garbage collection and event-loop delay, from its /metrics (prom-client's defaults). */
export interface LoopStats {
  /** Seconds spent in each kind of collection so far (major, minor, incremental, weakcb). */
  gcSeconds: Record<string, number>;
  gcCounts: Record<string, number>;
  /** The longest event-loop delay since the previous scrape (prom-client resets it at each), seconds. */
  lagMaxSeconds: number;
  /** Batch feeder passes that yielded to interactive work (`gen_batch_feeder_yields_total`), so far. */
  yields: number;
}

export async function loopStats(url: string): Promise<LoopStats> {
  const text = await (await request(`${url}/metrics`)).body.text();
  const stats: LoopStats = { gcSeconds: {}, gcCounts: {}, lagMaxSeconds: 0, yields: 0 };
  for (const line of text.split('\n')) {
    const gc = /^gen_nodejs_gc_duration_seconds_(sum|count)\{[^}]*kind="(\w+)"[^}]*\} ([0-9.e+-]+)/.exec(line);
    if (gc) (gc[1] === 'sum' ? stats.gcSeconds : stats.gcCounts)[gc[2]] = Number(gc[3]);
    const lag = /^gen_nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)/.exec(line);
    if (lag) stats.lagMaxSeconds = Math.max(stats.lagMaxSeconds, Number(lag[1]));
    const yields = /^gen_batch_feeder_yields_total(?:\{[^}]*\})? ([0-9.e+-]+)/.exec(line);
    if (yields) stats.yields += Number(yields[1]);
  }
  return stats;
}

/** What a window between two scrapes spent in major collections (count, total ms), and its longest event-loop delay. */
export function loopWindow(before: LoopStats, after: LoopStats, seconds: number): string {
  const kinds = Object.keys(after.gcSeconds);
  const gcMs = kinds.reduce((sum, kind) => sum + (after.gcSeconds[kind] - (before.gcSeconds[kind] ?? 0)) * 1000, 0);
  const majors = (after.gcCounts.major ?? 0) - (before.gcCounts.major ?? 0);
  const majorMs = ((after.gcSeconds.major ?? 0) - (before.gcSeconds.major ?? 0)) * 1000;
  return `GC ${((gcMs / (seconds * 1000)) * 100).toFixed(1)} % of the time, ${majors} major (${majorMs.toFixed(0)} ms); loop delay max ${(after.lagMaxSeconds * 1000).toFixed(0)} ms; feeder passes yielded ${after.yields - before.yields}`;
}

/**
 * Where the interactive (instant model) jobs created in a window spent their time, from their rows:
 * claim wait (`created_at` to `started_at`) and run (`started_at` to `completed_at`), p50 / p99 / max ms.
 * The rest of a request's latency is before its row (auth, the credit hold, admission) or after it (the reply).
 */
export async function interactivePhases(db: PgPool, from: Date, to: Date): Promise<string> {
  const { rows } = await db.query<{ phase: string; p50: number; p99: number; max: number }>(
    `SELECT phase, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99, max(ms) AS max
       FROM (SELECT unnest(ARRAY['claim wait', 'run']) AS phase,
                    unnest(ARRAY[extract(epoch FROM started_at - created_at), extract(epoch FROM completed_at - started_at)]) * 1000 AS ms
               FROM generation.jobs WHERE model_id = $1 AND created_at BETWEEN $2 AND $3 AND completed_at IS NOT NULL) phases
      GROUP BY phase ORDER BY phase`,
    [INSTANT_IMAGE, from, to],
  );
  return rows.map((r) => `${r.phase} ${Number(r.p50).toFixed(1)} / ${Number(r.p99).toFixed(1)} / ${Number(r.max).toFixed(0)}`).join('; ');
}

/**
 * Batch jobs (of `model`) that finished between `from` and `to`: how far the batch went on while the
 * interactive load ran (the feeder yields to a busy process, so it may have gone on slowly, or not at all).
 */
export async function batchJobsFinished(db: PgPool, model: string, from: Date, to: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM generation.jobs WHERE model_id = $1 AND completed_at BETWEEN $2 AND $3`,
    [model, from, to],
  );
  return rows[0].n;
}
