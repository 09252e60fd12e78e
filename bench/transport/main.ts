/**
 * `npm run bench:transport`: what one request/reply costs on each transport, client and server in
 * this one process, with a real Nest message handler (the pipes, filters and context every handler
 * of the services goes through) answering a generation record, as `generation.get` does, on that
 * subject: the transport checks each request's payload against GetGenerationRequest first, as it
 * does for every subject of the services.
 *
 * - in-process: RpcClient -> InProcessBus -> InProcessServer (standalone mode).
 * - NATS: NatsRpcClient -> nats-server -> NatsJetStreamServer (distributed mode), on BENCH_NATS_URL
 *   (default nats://127.0.0.1:4222) under a subject prefix of its own.
 *
 * For each: one request at a time (latency), then CONCURRENCY at once (throughput), and the CPU time
 * of this process per request (client and server together; nats-server's own CPU is not counted).
 * CPU per request is the figure that holds on a loaded machine; rates and latencies move with load.
 * Not a test: it prints a table.
 */
import 'reflect-metadata';
import { Controller, Module, UseFilters } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { INestMicroservice } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { GenerationRecord, Subjects } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { generationRecord } from '@gen/testing';
import { InProcessBus, InProcessRpcClient, InProcessServer, NatsJetStreamServer, NatsRpcClient, NatsTransportConfig, RpcClient } from '@gen/transport';
import { table } from '../support/markdown';
import { fmtMs, fmtRate, percentile } from '../webhooks/stats';

const PATTERN = Subjects.generationGet;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 3_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const CONCURRENT_MS = Number(process.env.BENCH_CONCURRENT_MS ?? 5_000);
const WARM_UP = 1_000;

const RECORD: GenerationRecord = generationRecord({ prompt: 'a lighthouse at dusk, oil on canvas, warm light over a calm sea' });

@Controller()
@UseFilters(RpcErrorFilter)
class BenchController {
  @MessagePattern(PATTERN)
  async get(@Payload() request: { accountId: string; jobId: string }): Promise<GenerationRecord> {
    return { ...RECORD, id: request.jobId };
  }
}

@Module({ controllers: [BenchController] })
class BenchModule {}

interface Row {
  transport: string;
  mode: string;
  requests: number;
  rate: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
}

const cpuMicros = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

async function measure(transport: string, client: RpcClient): Promise<Row[]> {
  const ask = () => client.request<GenerationRecord>(PATTERN, { accountId: RECORD.id, jobId: RECORD.id });
  for (let i = 0; i < WARM_UP; i++) await ask();

  const latencies: number[] = [];
  let cpu = cpuMicros();
  let started = performance.now();
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t = performance.now();
    const reply = await ask();
    latencies.push(performance.now() - t);
    if (reply.id !== RECORD.id) throw new Error('wrong reply');
  }
  // CPU and time are read before the percentiles are sorted out of the latencies.
  let cpuUsed = cpuMicros() - cpu;
  let elapsedS = (performance.now() - started) / 1000;
  const sequential: Row = {
    transport,
    mode: '1 at a time',
    requests: SEQUENTIAL,
    rate: SEQUENTIAL / elapsedS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuUsPerRequest: cpuUsed / SEQUENTIAL,
  };

  const concurrentLatencies: number[] = [];
  let done = 0;
  const deadline = performance.now() + CONCURRENT_MS;
  cpu = cpuMicros();
  started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await ask();
        concurrentLatencies.push(performance.now() - t);
        done++;
      }
    }),
  );
  cpuUsed = cpuMicros() - cpu;
  elapsedS = (performance.now() - started) / 1000;
  const concurrent: Row = {
    transport,
    mode: `${CONCURRENCY} at once`,
    requests: done,
    rate: done / elapsedS,
    p50: percentile(concurrentLatencies, 50),
    p99: percentile(concurrentLatencies, 99),
    cpuUsPerRequest: cpuUsed / done,
  };
  return [sequential, concurrent];
}

async function inProcess(): Promise<Row[]> {
  const bus = new InProcessBus();
  const app = await NestFactory.createMicroservice(BenchModule, { strategy: new InProcessServer(bus), logger: false });
  await app.listen();
  try {
    return await measure('in-process', new InProcessRpcClient(bus));
  } finally {
    await app.close();
  }
}

async function nats(url: string): Promise<Row[]> {
  const config: NatsTransportConfig = {
    url,
    service: 'bench',
    subjectPrefix: `bench${randomBytes(4).toString('hex')}.`,
    streamName: 'UNUSED',
    requestTimeoutMs: 10_000,
  };
  const app: INestMicroservice = await NestFactory.createMicroservice(BenchModule, { strategy: new NatsJetStreamServer(config), logger: false });
  await app.listen();
  const client = new NatsRpcClient({ ...config, service: 'bench-client' });
  try {
    return await measure('NATS', client);
  } finally {
    await client.onApplicationShutdown();
    await app.close();
  }
}

async function main(): Promise<void> {
  const natsUrl = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
  const rows = [...(await inProcess()), ...(await nats(natsUrl))];
  process.stdout.write(
    `\nRequest/reply of a generation record through a Nest message handler; client and server in one process.\n` +
      `Machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(2)} at the end. Node ${process.version}.\n\n`,
  );
  process.stdout.write(
    table(
      ['transport', 'in flight', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/request'],
      rows.map((r) => [r.transport, r.mode, String(r.requests), fmtRate(r.rate), fmtMs(r.p50), fmtMs(r.p99), r.cpuUsPerRequest.toFixed(1)]),
    ) + '\n',
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:transport failed: ${String((error as Error)?.stack ?? error)}\n`);
    process.exit(1);
  },
);
