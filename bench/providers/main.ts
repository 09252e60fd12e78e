import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { Logger } from '@nestjs/common';
import type { GenerationType } from '@gen/contracts';
import { Agent, request } from 'undici';
import type { Engine, EngineRequest } from '../../apps/generation/src/ports/engine';
import type { EngineKind } from '../../apps/generation/src/ports/engine-kind';
import { cogEngineKind } from '../../apps/generation/src/providers/cog/cog.kind';
import { falEngineKind } from '../../apps/generation/src/providers/fal/fal.kind';
import { openAiImagesEngineKind } from '../../apps/generation/src/providers/openai-images/openai-images.kind';
import { remoteEngineKind } from '../../apps/generation/src/providers/remote/remote-engine.kind';
import { replicateEngineKind } from '../../apps/generation/src/providers/replicate/replicate.kind';
import { startFakeCog, startFakeFal, startFakeOpenAiImages, startFakeReplicate, startFakeUpstream } from '@gen/testing';

/**
 * `npm run bench:providers` (bench/README.md; its runs in bench/HISTORY.md): what each provider adapter adds to a
 * generation, at one connection, against its fake on 127.0.0.1. Each iteration runs one generation
 * through the adapter (its `Engine.generate`, as the job runner calls it) and, alternately, the same
 * HTTP calls made by a bare client (undici on a keep-alive pool, no checks: submit, the same polls
 * with the same pauses, the result, the file). Both see the same fake doing the same work, so the
 * difference is the adapter's own cost: the destination policy, JSON checks, the reference handed
 * to `saveUpstreamRef` (kept in memory here: the job row's UPDATE is not counted), output sniffing,
 * base64 and data URI decoding. Reported per iteration pair, p50 and p99. Bounded: about a minute.
 */
const env = process.env;
const number = (name: string, fallback: number) => {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const RUNS = number('BENCH_PROVIDER_RUNS', 200);
const WARMUP = number('BENCH_PROVIDER_WARMUP', 20);
const POLL_MS = 10; // the shortest pollIntervalMs a binding takes; the bare client pauses the same
const LIMIT_SECONDS = number('BENCH_LIMIT_SECONDS', 180);
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Subject {
  name: string;
  /** HTTP calls per generation (submit, polls, result, file). */
  calls: number;
  engine: Engine;
  bare(): Promise<Buffer>;
  type: GenerationType;
  reset(): void;
  close(): Promise<void>;
}

const agent = new Agent({ keepAliveTimeout: 4_000 });
async function call(method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; buffer: Buffer }> {
  const res = await request(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: agent,
  });
  return { status: res.statusCode, buffer: Buffer.from(await res.body.arrayBuffer()) };
}
const json = async (...args: Parameters<typeof call>) => JSON.parse((await call(...args)).buffer.toString('utf8')) as Record<string, unknown>;
const pause = () => new Promise((r) => setTimeout(r, POLL_MS));

function build(kind: EngineKind, modelId: string, settings: Record<string, unknown>, secrets: Record<string, string>): Engine {
  const problems: string[] = [];
  kind.validate(settings, modelId, problems);
  if (problems.length) throw new Error(problems.join('\n'));
  return kind.create(modelId, settings, { env: (name) => secrets[name], allowPrivateNetworks: true });
}

async function subjects(): Promise<Subject[]> {
  const replicate = await startFakeReplicate();
  const fal = await startFakeFal();
  const cog = await startFakeCog();
  const openai = await startFakeOpenAiImages();
  const remote = await startFakeUpstream();
  const common = { pollIntervalMs: POLL_MS, retries: 0 };
  return [
    {
      name: 'replicate',
      calls: 4,
      type: 'TEXT_TO_IMAGE',
      engine: build(replicateEngineKind, 'bench-replicate', { ...common, baseUrl: replicate.url, upstreamModel: 'fake/ok', tokenEnv: 'T', outputOrigins: [replicate.cdnUrl] }, { T: replicate.token }),
      async bare() {
        const auth = { authorization: `Bearer ${replicate.token}` };
        let p = await json('POST', `${replicate.url}/v1/models/fake/ok/predictions`, auth, { input: { prompt: 'a red kite' } });
        do {
          await pause();
          p = await json('GET', `${replicate.url}/v1/predictions/${String(p.id)}`, auth);
        } while (p.status === 'starting' || p.status === 'processing');
        return (await call('GET', (p.output as string[])[0])).buffer;
      },
      reset: () => (replicate.requests.length = 0),
      close: () => replicate.close(),
    },
    {
      name: 'fal',
      calls: 6,
      type: 'TEXT_TO_IMAGE',
      engine: build(falEngineKind, 'bench-fal', { ...common, baseUrl: fal.url, upstreamModel: 'fake-ai/image', tokenEnv: 'K', outputOrigins: [fal.cdnUrl] }, { K: fal.key }),
      async bare() {
        const auth = { authorization: `Key ${fal.key}` };
        const submitted = await json('POST', `${fal.url}/fake-ai/image`, auth, { prompt: 'a red kite' });
        let status: Record<string, unknown>;
        do {
          status = await json('GET', String(submitted.status_url), auth);
          if (status.status !== 'COMPLETED') await pause();
        } while (status.status !== 'COMPLETED');
        const result = await json('GET', String(submitted.response_url), auth);
        return (await call('GET', ((result.images as Array<{ url: string }>)[0]).url)).buffer;
      },
      reset: () => (fal.requests.length = 0),
      close: () => fal.close(),
    },
    {
      name: 'cog',
      calls: 1,
      type: 'TEXT_TO_IMAGE',
      engine: build(cogEngineKind, 'bench-cog', { ...common, baseUrl: cog.url, input: { scenario: 'ok', duration_ms: 1 } }, {}),
      async bare() {
        const id = randomUUID().replace(/-/g, '').slice(0, 26);
        const p = await json('PUT', `${cog.url}/predictions/${id}`, {}, { input: { scenario: 'ok', duration_ms: 1, prompt: 'a red kite' } });
        return Buffer.from(String(p.output).split(',')[1], 'base64');
      },
      reset: () => ((cog.requests.length = 0), (cog.started.length = 0)),
      close: () => cog.close(),
    },
    {
      name: 'openai-images',
      calls: 1,
      type: 'TEXT_TO_IMAGE',
      engine: build(openAiImagesEngineKind, 'bench-openai', { ...common, baseUrl: openai.url, upstreamModel: 'gpt-image-1', tokenEnv: 'O' }, { O: openai.key }),
      async bare() {
        const body = await json('POST', `${openai.url}/v1/images/generations`, { authorization: `Bearer ${openai.key}` }, { model: 'gpt-image-1', prompt: 'a red kite', n: 1 });
        return Buffer.from((body.data as Array<{ b64_json: string }>)[0].b64_json, 'base64');
      },
      reset: () => (openai.requests.length = 0),
      close: () => openai.close(),
    },
    {
      name: 'remote',
      calls: 4,
      type: 'TEXT_TO_IMAGE',
      engine: build(
        remoteEngineKind,
        'bench-remote',
        { ...common, baseUrl: remote.url, upstreamModel: 'ok', auth: { header: 'Authorization', prefix: 'Bearer ', valueEnv: 'R' } },
        { R: remote.secret },
      ),
      async bare() {
        const auth = { authorization: `Bearer ${remote.secret}` };
        const submitted = await json('POST', `${remote.url}/v1/generations`, { ...auth, 'idempotency-key': randomUUID() }, { model: 'ok', prompt: 'a red kite' });
        let status: Record<string, unknown>;
        do {
          await pause();
          status = await json('GET', `${remote.url}/v1/generations/${String(submitted.id)}`, auth);
        } while (status.status !== 'succeeded');
        return (await call('GET', `${remote.url}${String(status.output_url)}`, auth)).buffer;
      },
      reset: () => (remote.requests.length = 0),
      close: () => remote.close(),
    },
  ];
}

function engineRequest(type: GenerationType): EngineRequest {
  return {
    jobId: randomUUID(),
    modelId: 'bench',
    type,
    prompt: 'a red kite',
    seed: 1,
    params: {},
    input: {},
    signal: new AbortController().signal,
    upstreamRef: null,
    saveUpstreamRef: () => Promise.resolve(),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const fixed = (n: number) => n.toFixed(2);

async function measure(subject: Subject): Promise<{ adapter: number[]; bare: number[]; added: number[] }> {
  const adapter: number[] = [];
  const bare: number[] = [];
  const added: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    subject.reset();
    // Alternate which goes first, so neither always meets a freshly idle connection.
    const order = i % 2 === 0 ? (['adapter', 'bare'] as const) : (['bare', 'adapter'] as const);
    const times: Record<'adapter' | 'bare', number> = { adapter: 0, bare: 0 };
    for (const which of order) {
      const started = process.hrtime.bigint();
      const bytes = which === 'adapter' ? ((await subject.engine.generate(engineRequest(subject.type)))[0].data ?? Buffer.alloc(0)) : await subject.bare();
      times[which] = Number(process.hrtime.bigint() - started) / 1e6;
      if (bytes.length === 0) throw new Error(`${subject.name}: empty output`);
    }
    if (i < WARMUP) continue;
    adapter.push(times.adapter);
    bare.push(times.bare);
    added.push(times.adapter - times.bare);
  }
  for (const list of [adapter, bare, added]) list.sort((a, b) => a - b);
  return { adapter, bare, added };
}

async function main(): Promise<void> {
  const started = Date.now();
  setTimeout(() => {
    process.stderr.write(`bench:providers: still running after ${LIMIT_SECONDS} s; stopping\n`);
    process.exit(2);
  }, LIMIT_SECONDS * 1000).unref();
  Logger.overrideLogger(['error']);
  log(`bench:providers on ${cpus().length} CPUs (load average ${loadavg()[0].toFixed(1)}), Node ${process.version}: ${RUNS} generations per adapter (+${WARMUP} warm-up), one at a time`);
  const all = await subjects();
  const rows: string[] = [];
  try {
    for (const subject of all) {
      log(`- ${subject.name}`);
      const { adapter, bare, added } = await measure(subject);
      rows.push(
        `| ${subject.name} | ${subject.calls} | ${fixed(percentile(bare, 50))} | ${fixed(percentile(bare, 99))} | ${fixed(percentile(adapter, 50))} | ${fixed(percentile(adapter, 99))} | ${fixed(percentile(added, 50))} | ${fixed(percentile(added, 99))} |`,
      );
    }
  } finally {
    await Promise.all(all.map((s) => s.engine.dispose?.() ?? Promise.resolve()));
    await Promise.all(all.map((s) => s.close()));
    await agent.close();
  }
  process.stdout.write(
    [
      '',
      `Added latency of each provider adapter against its fake on 127.0.0.1, one generation at a time (${RUNS} runs, ms; pauses between polls ${POLL_MS} ms on both sides)`,
      '',
      '| adapter | HTTP calls | bare p50 | bare p99 | adapter p50 | adapter p99 | added p50 | added p99 |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `(${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end, Node ${process.version}; total ${((Date.now() - started) / 1000).toFixed(1)} s)`,
      '',
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:providers failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
