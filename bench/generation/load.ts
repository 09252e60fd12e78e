import { Pool } from 'undici';
import { sleep } from './processes';

export interface LoadResult {
  ok: number;
  errors: number;
  /** Answers other than 200 completed, by status (a 202 means the sync budget ran out). */
  statuses: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
}

/**
 * A closed loop of `concurrency` clients sending sync image generations for `seconds` (after a
 * warm-up that is not counted), each over keep-alive connections, as an API client would. Client
 * `i` uses key `i mod keys.length`.
 */
export async function syncImageLoad(baseUrl: string, keys: string[], concurrency: number, warmupSeconds: number, seconds: number): Promise<LoadResult> {
  const pool = new Pool(baseUrl, { connections: concurrency, pipelining: 1 });
  const body = JSON.stringify({ model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let errors = 0;
  let measuring = false;
  let stopping = false;

  const client = async (index: number) => {
    const headers = { authorization: `Bearer ${keys[index % keys.length]}`, 'content-type': 'application/json' };
    while (!stopping) {
      const started = performance.now();
      let label: string;
      try {
        const res = await pool.request({ method: 'POST', path: '/api/v1/generate', headers, body });
        const record = (await res.body.json()) as { status?: string };
        label = res.statusCode === 200 && record.status === 'completed' ? 'ok' : `${res.statusCode} ${record.status ?? ''}`.trim();
      } catch (error) {
        label = `error ${(error as { code?: string }).code ?? (error as Error).name}`;
      }
      if (!measuring || stopping) continue;
      if (label === 'ok') {
        ok++;
        latencies.push(performance.now() - started);
      } else {
        errors++;
        statuses[label] = (statuses[label] ?? 0) + 1;
      }
    }
  };

  const clients = Array.from({ length: concurrency }, (_, i) => client(i));
  await sleep(warmupSeconds * 1000);
  measuring = true;
  const started = performance.now();
  await sleep(seconds * 1000);
  stopping = true;
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(clients);
  await pool.close();

  latencies.sort((a, b) => a - b);
  const pct = (p: number) => (latencies.length === 0 ? NaN : latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]);
  return { ok, errors, statuses, seconds: elapsed, perSecond: ok / elapsed, p50: pct(50), p95: pct(95), p99: pct(99) };
}
