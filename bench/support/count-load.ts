import { Pool } from 'undici';
import type { LoadRequest } from './load';

export interface CountOptions {
  /** Keep-alive connections, one request in flight on each. */
  connections: number;
  /** How many requests in all, shared by the connections. */
  requests: number;
  request(lane: number): LoadRequest;
  /** 'ok' counts as served; anything else is tallied by its label. Default: 200 is ok. */
  outcome?(status: number, body: string): string;
}

export interface CountResult {
  ok: number;
  failed: number;
  failures: Record<string, number>;
}

/**
 * A fixed number of requests (not a time window): the guard charges the CPU of a known amount of
 * work, so the run takes as long as the machine needs and the figure does not depend on it.
 */
export async function runCount(baseUrl: string, options: CountOptions): Promise<CountResult> {
  const pool = new Pool(baseUrl, { connections: options.connections, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const outcome = options.outcome ?? ((status: number) => (status === 200 ? 'ok' : String(status)));
  const failures: Record<string, number> = {};
  let ok = 0;
  let left = options.requests;
  const lane = async (index: number) => {
    const request = options.request(index);
    while (left > 0) {
      left--;
      let label: string;
      try {
        const response = await pool.request(request);
        label = outcome(response.statusCode, await response.body.text());
      } catch (error) {
        label = `error ${(error as { code?: string }).code ?? (error as Error).name}`;
      }
      if (label === 'ok') ok++;
      else failures[label] = (failures[label] ?? 0) + 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.connections, options.requests) }, (_, i) => lane(i)));
  } finally {
    await pool.close();
  }
  return { ok, failed: options.requests - ok, failures };
}
