import { readdirSync, readFileSync } from 'node:fs';
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

/**
 * The CPU of a server running on this machine, ms so far: every process whose name (`/proc/<pid>/comm`)
 * is `command` (`postgres`, `nats-server`), plus what the topmost ones collected from children that
 * have exited (PostgreSQL's backends come and go as pools open and close connections; the
 * postmaster's cutime and cstime hold theirs). It counts all of the server's work, whoever asked for
 * it. Null when no such process is visible (a server on another machine, or not Linux).
 */
export function serverCpuMs(command: string): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const found: Array<{ pid: string; ppid: string; own: number; children: number }> = [];
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(') ');
      if (stat.slice(stat.indexOf('(') + 1, close) !== command) continue;
      // After the name: state, ppid, ..., utime (12th), stime, cutime, cstime.
      const fields = stat.slice(close + 2).split(' ');
      found.push({ pid, ppid: fields[1], own: Number(fields[11]) + Number(fields[12]), children: Number(fields[13]) + Number(fields[14]) });
    } catch {
      // Gone between the listing and the read: its CPU is in its parent's cutime from now on.
    }
  }
  if (found.length === 0) return null;
  const pids = new Set(found.map((p) => p.pid));
  const ticks = found.reduce((sum, p) => sum + p.own + (pids.has(p.ppid) ? 0 : p.children), 0);
  return (ticks * 1000) / CLOCK_TICKS;
}

/** Starts counting a server's CPU (`serverCpuMs`); the returned function gives µs per request for `requests` served since, NaN when it is not on this machine. */
export function serverCpuMeter(command: string): (requests: number) => number {
  const before = serverCpuMs(command);
  return (requests) => {
    const after = serverCpuMs(command);
    return before === null || after === null || requests <= 0 ? Number.NaN : ((after - before) * 1000) / requests;
  };
}
