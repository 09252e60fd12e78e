import { createHistogram, performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { sleep } from './processes';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  /** Keep-alive connections, one request in flight on each (no pipelining): a closed loop per connection. */
  connections: number;
  warmupSeconds: number;
  seconds: number;
  /** The request connection `lane` sends, again and again. */
  request(lane: number): LoadRequest;
  /** The answer's label: 'ok' counts (throughput, latency); anything else is tallied apart. Default: 200 is ok. */
  outcome?(status: number, body: string): string;
}

export interface LoadResult {
  ok: number;
  /** Every answer (or error) the run received, those of the warm-up and the last in flight included. */
  answered: number;
  /** Answers that were not 'ok', by label (status, or error code). */
  failures: Record<string, number>;
  failed: number;
  seconds: number;
  perSecond: number;
  /** Latency of the ok answers, ms. */
  p50: number;
  p95: number;
  p99: number;
  /**
   * How busy the client's event loop was while measuring (0..1), and its CPU in cores: near 1 the
   * client, not the server, would be the limit.
   */
  clientLoopBusy: number;
  clientCpuCores: number;
}

/** 200 is ok; anything else is labelled by its status and what the answer says (the API's error code, Fastify's message). */
function okIf200(status: number, body: string): string {
  if (status === 200) return 'ok';
  let said: unknown;
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown }; message?: unknown };
    said = parsed.error?.code ?? parsed.message;
  } catch {
    // Not JSON: the status alone.
  }
  return typeof said === 'string' ? `${status} ${said.slice(0, 80)}` : String(status);
}

/**
 * The load client every HTTP benchmark shares: an undici pool of `connections` keep-alive
 * connections, each running a closed loop (send, read the whole answer, send again) for a warm-up
 * that is not counted, then `seconds` in which every answer completed is counted. Latencies go to
 * an HDR histogram (microseconds), so recording costs the same at any rate.
 */
export async function runLoad(baseUrl: string, options: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(baseUrl, { connections: options.connections, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const outcome = options.outcome ?? okIf200;
  const histogram = createHistogram();
  const failures: Record<string, number> = {};
  let ok = 0;
  let answered = 0;
  let measuring = false;
  let stopping = false;

  const lane = async (index: number) => {
    const request = options.request(index);
    while (!stopping) {
      const started = performance.now();
      let label: string;
      try {
        const response = await pool.request(request);
        label = outcome(response.statusCode, await response.body.text());
      } catch (error) {
        label = `error ${(error as { code?: string }).code ?? (error as Error).name}`;
      }
      answered++;
      if (!measuring || stopping) continue;
      if (label === 'ok') {
        ok++;
        histogram.record(Math.max(1, Math.round((performance.now() - started) * 1000)));
      } else {
        failures[label] = (failures[label] ?? 0) + 1;
      }
    }
  };

  const lanes = Array.from({ length: options.connections }, (_, i) => lane(i));
  await sleep(options.warmupSeconds * 1000);
  measuring = true;
  const loopBefore = performance.eventLoopUtilization();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await sleep(options.seconds * 1000);
  stopping = true;
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const loop = performance.eventLoopUtilization(loopBefore);
  await Promise.all(lanes);
  await pool.close();

  const ms = (p: number) => (ok === 0 ? NaN : histogram.percentile(p) / 1000);
  return {
    ok,
    answered,
    failures,
    failed: Object.values(failures).reduce((a, b) => a + b, 0),
    seconds: elapsed,
    perSecond: ok / elapsed,
    p50: ms(50),
    p95: ms(95),
    p99: ms(99),
    clientLoopBusy: loop.utilization,
    clientCpuCores: (cpu.user + cpu.system) / 1e6 / elapsed,
  };
}
