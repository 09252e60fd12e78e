import { Pool } from 'undici';

export interface Measurement {
  /** Completed operations per second (successful ones only). */
  opsPerSecond: number;
  ok: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  /** Count of each HTTP status (or error name) seen. */
  outcomes: Record<string, number>;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Runs `operation` from `concurrency` loops for `warmupMs` (not counted) then `durationMs`, and
 * measures throughput and latency. `operation` returns the outcome label ('ok' counts as success).
 */
export async function measure(
  operation: () => Promise<string>,
  options: { concurrency: number; durationMs: number; warmupMs: number },
): Promise<Measurement> {
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  let ok = 0;
  let errors = 0;
  const start = performance.now();
  const countFrom = start + options.warmupMs;
  const stopAt = countFrom + options.durationMs;
  const loop = async () => {
    while (performance.now() < stopAt) {
      const began = performance.now();
      let outcome: string;
      try {
        outcome = await operation();
      } catch (error) {
        outcome = (error as Error).name ?? 'error';
      }
      const ended = performance.now();
      if (began < countFrom || ended > stopAt) continue;
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      if (outcome === 'ok') {
        ok++;
        latencies.push(ended - began);
      } else errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  latencies.sort((a, b) => a - b);
  return {
    opsPerSecond: ok / (options.durationMs / 1000),
    ok,
    errors,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    outcomes,
  };
}

/** An HTTP operation for measure(): one request on a keep-alive pool; `okStatus` counts as success. */
export function httpOperation(
  pool: Pool,
  request: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string },
  okStatus: (status: number) => boolean,
): () => Promise<string> {
  return async () => {
    const response = await pool.request(request);
    await response.body.dump();
    return okStatus(response.statusCode) ? 'ok' : String(response.statusCode);
  };
}
