import { runCount, type CountOptions } from '../support/count-load';
import { processesCpuMs } from '../support/cpu';
import { sleep } from '../support/processes';
import type { Measurement } from './verdict';

export interface RouteRun extends Omit<CountOptions, 'requests'> {
  /** Requests sent first and not counted (JIT, pools, caches warm). */
  warmup: number;
  /** Requests whose CPU is charged. */
  requests: number;
}

type Pids = () => ReadonlyArray<number | undefined>;

/**
 * The CPU the processes spend doing nothing asked of them (timers, polls, heartbeats), in ms per
 * second: it goes on whatever the requests cost, and more of it per request the slower the machine
 * serves them, so it is taken off.
 */
export async function idleCpuPerSecond(pids: Pids, seconds = 3): Promise<number> {
  const before = processesCpuMs(pids());
  const from = performance.now();
  await sleep(seconds * 1000);
  return ((processesCpuMs(pids()) - before) * 1000) / (performance.now() - from);
}

/**
 * One route's CPU per request: a warm-up, then `requests` requests whose cost is the CPU every
 * process in `pids` spent from the first to the last answer (user + system, /proc), less their
 * idle rate over that time, per request.
 */
export async function measureRoute(route: string, url: string, pids: Pids, run: RouteRun, idleMsPerSecond = 0): Promise<Measurement> {
  await runCount(url, { ...run, requests: run.warmup });
  const before = processesCpuMs(pids());
  const from = performance.now();
  const result = await runCount(url, run);
  const idleMs = (idleMsPerSecond * (performance.now() - from)) / 1000;
  const spentMs = Math.max(0, processesCpuMs(pids()) - before - idleMs);
  return { route, cpuUsPerRequest: (spentMs * 1000) / run.requests, requests: run.requests, failed: result.failed };
}
