import { Pool as PgPool } from 'pg';
import { runCount, type CountOptions } from '../support/count-load';
import { processesCpuMs } from '../support/cpu';
import type { RunningMode } from '../support/modes';
import { submitJobs, waitJobsFinal } from '../support/provider-jobs';
import type { Measurement } from './verdict';

export interface RouteRun extends Omit<CountOptions, 'requests'> {
  /** Requests sent first and not counted (JIT, pools, caches warm). */
  warmup: number;
  /** Requests whose CPU is charged. */
  requests: number;
}

type Pids = () => ReadonlyArray<number | undefined>;

/** Starts charging: the returned function gives the CPU ms every process in `pids` spent since, less their idle rate. */
function chargeFrom(pids: Pids, idleMsPerSecond: number): () => number {
  const before = processesCpuMs(pids());
  const from = performance.now();
  return () => Math.max(0, processesCpuMs(pids()) - before - (idleMsPerSecond * (performance.now() - from)) / 1000);
}

/**
 * One route's CPU per request: a warm-up, then `requests` requests whose cost is the CPU every
 * process in `pids` spent from the first to the last answer (user + system, /proc), less their
 * idle rate over that time, per request.
 */
export async function measureRoute(route: string, url: string, pids: Pids, run: RouteRun, idleMsPerSecond = 0): Promise<Measurement> {
  await runCount(url, { ...run, requests: run.warmup });
  const spent = chargeFrom(pids, idleMsPerSecond);
  const result = await runCount(url, run);
  return { route, cpuUsPerRequest: (spent() * 1000) / run.requests, requests: run.requests, failed: result.failed };
}

export interface ProviderJobsRun {
  /** A model bound to a fake provider (bindToFake). */
  model: string;
  type: string;
  connections: number;
  /** Jobs submitted and waited for first, not counted. */
  warmup: number;
  /** Jobs whose CPU is charged: from the first submit until every one of them is final. */
  jobs: number;
}

/**
 * A provider job's CPU: asynchronous submits, then everything the service does until each job is
 * final (the upstream submit, its parked checks, the output fetched and stored, the finish and
 * settle), over every process in `pids`, less their idle rate, per job.
 */
export async function measureProviderJobs(route: string, mode: RunningMode, pids: Pids, run: ProviderJobsRun, idleMsPerSecond = 0): Promise<Measurement> {
  const db = new PgPool({ connectionString: mode.databaseUrl, max: 1 });
  try {
    const warm = await submitJobs(mode, run.model, run.type, run.warmup, run.connections);
    await waitJobsFinal(db, warm.ids, 120_000);
    const spent = chargeFrom(pids, idleMsPerSecond);
    const measured = await submitJobs(mode, run.model, run.type, run.jobs, run.connections);
    const done = await waitJobsFinal(db, measured.ids, 300_000);
    // The database reads of the wait are the bench's own, not the service's: only the processes' CPU counts.
    return { route, cpuUsPerRequest: (spent() * 1000) / run.jobs, requests: run.jobs, failed: done.failed };
  } finally {
    await db.end();
  }
}
