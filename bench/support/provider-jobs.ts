import { Pool as PgPool } from 'pg';
import { Pool } from 'undici';
import type { FakeReplicate } from '@gen/testing';
import type { RunningMode } from './modes';
import { cli, sleep } from './processes';

/**
 * Provider jobs driven from outside, as customers make them: a catalogue model bound to a fake
 * provider, asynchronous submits over keep-alive connections, and the jobs' states read from the
 * service's database until every one is final (bench:providers-scale, bench:guard).
 */

/** The environment the generation process needs to reach a fake Replicate on this machine with `token`. */
export const fakeReplicateEnv = (token: string): Record<string, string> => ({ BENCH_REPLICATE_TOKEN: token, UPSTREAM_ALLOW_PRIVATE_NETWORKS: 'true' });

/** Binds a catalogue model to the fake with the operator CLI, then waits out the catalogue refresh. */
export async function bindToFake(mode: RunningMode, modelId: string, fake: FakeReplicate, scenario: string, extra: Record<string, unknown> = {}): Promise<void> {
  const engine = {
    engine: 'replicate',
    baseUrl: fake.url,
    upstreamModel: `fake/${scenario}`,
    tokenEnv: 'BENCH_REPLICATE_TOKEN',
    outputOrigins: [fake.cdnUrl],
    timeouts: { totalMs: 600_000 },
    ...extra,
  };
  await cli(mode.databaseUrl, ['models', 'update', '--id', modelId, '--engine', JSON.stringify(engine)]);
  await sleep(3_500);
}

export interface Submitted {
  ids: string[];
  /** When the first submit was sent and the last one answered (ms since the epoch). */
  firstAt: number;
  lastAt: number;
}

/** `count` asynchronous submits of `model` over `connections` keep-alive connections, the mode's keys in turn. */
export async function submitJobs(mode: RunningMode, model: string, type: string, count: number, connections: number): Promise<Submitted> {
  const pool = new Pool(mode.url, { connections, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const ids: string[] = [];
  let next = 0;
  const firstAt = Date.now();
  const lane = async (index: number) => {
    const key = mode.keys[index % mode.keys.length];
    while (next < count) {
      const i = next++;
      const res = await pool.request({
        method: 'POST',
        path: '/api/v1/generate',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, prompt: `bench prompt ${i}`, type }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 202) throw new Error(`submit ${i}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
      ids.push((JSON.parse(text) as { id: string }).id);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, (_, i) => lane(i)));
  } finally {
    await pool.close();
  }
  return { ids, firstAt, lastAt: Date.now() };
}

export interface JobsProgress {
  finished: number;
  failed: number;
  /** Waiting upstream, checked by the poll scheduler (no worker holds them). */
  parked: number;
}

export async function jobsProgress(db: PgPool, ids: string[]): Promise<JobsProgress> {
  const { rows } = await db.query<JobsProgress>(
    `SELECT count(*) FILTER (WHERE status IN ('completed', 'failed'))::int AS finished,
            count(*) FILTER (WHERE status = 'failed')::int AS failed,
            count(*) FILTER (WHERE status = 'processing' AND next_check_at IS NOT NULL)::int AS parked
     FROM generation.jobs WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return rows[0];
}

/** Waits until every job is final (read every 50 ms, `sample` called at each read); when, and how many failed. */
export async function waitJobsFinal(db: PgPool, ids: string[], timeoutMs: number, sample: () => void = () => undefined): Promise<{ at: number; failed: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    sample();
    const p = await jobsProgress(db, ids);
    if (p.finished === ids.length) return { at: Date.now(), failed: p.failed };
    if (Date.now() > deadline) throw new Error(`${ids.length - p.finished} of ${ids.length} jobs still unfinished after ${timeoutMs} ms`);
    await sleep(50);
  }
}
