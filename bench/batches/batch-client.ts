import { request } from 'undici';
import type { RunningMode } from '../support/modes';
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
