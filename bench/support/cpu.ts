import { readFileSync } from 'node:fs';
import { sleep } from './processes';

/**
 * CPU time of processes, read from `/proc/<pid>/stat` (user + system, Linux only): what the
 * benchmarks and the guard charge to each request. Wall time moves with whatever else the shared
 * machine runs; the CPU a request costs the service's processes moves much less.
 */

/** Clock ticks per second of /proc's utime/stime: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/** User + system CPU of a process so far, ms; NaN if it cannot be read (gone, or not Linux). */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces), which ends with ") ".
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** The CPU of every listed process so far, summed, ms. */
export function processesCpuMs(pids: ReadonlyArray<number | undefined>): number {
  return pids.reduce<number>((sum, pid) => sum + processCpuMs(pid), 0);
}

/** Starts counting the CPU of `pids`; the returned function gives µs per request for `requests` served since. */
export function cpuMeter(pids: () => ReadonlyArray<number | undefined>): (requests: number) => number {
  const before = processesCpuMs(pids());
  return (requests) => (requests > 0 ? ((processesCpuMs(pids()) - before) * 1000) / requests : Number.NaN);
}

/**
 * The CPU the processes spend doing nothing asked of them (timers, polls, heartbeats), in ms per
 * second: it goes on whatever the requests cost, and more of it per request the slower the machine
 * serves them, so it is taken off.
 */
export async function idleCpuPerSecond(pids: () => ReadonlyArray<number | undefined>, seconds = 3): Promise<number> {
  const before = processesCpuMs(pids());
  const from = performance.now();
  await sleep(seconds * 1000);
  return ((processesCpuMs(pids()) - before) * 1000) / (performance.now() - from);
}
