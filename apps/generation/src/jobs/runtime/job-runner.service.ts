import { Inject, Injectable, Logger } from '@nestjs/common';
import { EngineError } from '../../ports/engine';
import { DEFAULT_RETENTION_SECONDS, GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { JobMetrics } from '../../metrics/job-metrics';
import { JobFinisher } from '../job-finisher.service';
import type { JobEntity } from '../job.entity';
import type { FinishedJob, JobOutcome } from '../job-finish.repository';
import { EngineCalls } from './engine-calls.service';
import { JobOutputs } from './job-outputs.service';
import { JobProgress } from './job-progress.service';
import { LeaseKeeper } from './lease-keeper.service';
import { PARKED } from './provider-phases.service';
import { CANCELED, LEASE_LOST, Run, RunningJobs } from './running-jobs';
import { SyncWaits } from '../sync-waits';

const GENERIC_FAILURE = 'The generation failed. Your credits were refunded; please try again.';

/**
 * Runs the jobs this process claimed (`JobClaimer`) or took for an upstream check (`ParkedJobs`),
 * each in a slot of its pool under a lease the `LeaseKeeper` keeps alive: calls the engine, stores the
 * outputs and finishes the job through the `JobFinisher`. A run ends early for one of three reasons:
 * its job was canceled (by its owner, its Cancel-After deadline, an operator), its lease was lost
 * (another worker has the job), or shutdown (the job is handed back).
 */
@Injectable()
export class JobRunner {
  private readonly logger = new Logger(JobRunner.name);
  private stopping = false;

  constructor(
    private readonly running: RunningJobs,
    private readonly engines: EngineCalls,
    private readonly outputs: JobOutputs,
    private readonly finisher: JobFinisher,
    private readonly leases: LeaseKeeper,
    private readonly progress: JobProgress,
    private readonly waits: SyncWaits,
    private readonly metrics: JobMetrics,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  /** A job claimed from the queue, leased to this process: it runs now. */
  run(job: JobEntity): void {
    this.start(job, 'claim');
  }

  /**
   * Parked jobs due for a check (claimed by the poll scheduler, leased to this process): each is
   * checked once with a provider slot, then parked again, or collected and finished, or failed.
   */
  check(jobs: readonly JobEntity[]): void {
    for (const job of jobs) this.start(job, 'check');
  }

  /** Stops this process's run of a job that was finished by someone else (a cancel); no-op if not running here. */
  stop(jobId: string): void {
    this.running.abort(jobId, CANCELED);
  }

  /** A parked job was canceled (no run has it): its upstream job is canceled from here, best effort. */
  cancelParked(job: JobEntity): void {
    this.engines.cancelParked(job);
  }

  /** Resolves with the job once it is final (finished anywhere) within `ms`; null if it is not by then. */
  waitForFinish(jobId: string, ms: number): Promise<JobEntity | null> {
    return this.waits.wait(jobId, ms, this.running.has(jobId));
  }

  /**
   * Shutdown (claiming has stopped): lets running jobs finish for up to `drainTimeoutMs` (leases kept
   * alive meanwhile), then aborts the rest, which hand their jobs back to the queue at once.
   */
  async drain(): Promise<void> {
    this.stopping = true;
    const all = () => Promise.allSettled(this.running.all().map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.settings.drainTimeoutMs ?? 20_000)));
    if ((await Promise.race([all().then(() => 'done' as const), bound])) === 'timeout') {
      this.logger.warn({ jobs: this.running.ids() }, 'Jobs still running at the drain deadline; handing them back');
      for (const run of this.running.all()) run.abort.abort();
      await all();
    }
    clearTimeout(timer);
  }

  private start(job: JobEntity, kind: Run['kind']): void {
    if (kind === 'claim') this.metrics.claimed(job);
    // A run of ours for the same job is stale: its lease expired under it (heartbeats failed) and
    // the job was requeued and claimed again. The new claim owns the job now.
    this.running.abort(job.id, LEASE_LOST);
    const pool = kind === 'check' ? 'io' : this.running.poolOf(job);
    const run: Run = { job, kind, pool, abort: new AbortController(), done: Promise.resolve(), upstreamRef: job.upstreamRef };
    this.running.add(run);
    run.done = this.execute(run).finally(() => this.running.remove(run));
    if (kind === 'claim') this.progress.announce(job, null);
  }

  private async execute(run: Run): Promise<void> {
    const { job } = run;
    const signal = run.abort.signal;
    let outcome: JobOutcome;
    try {
      if (job.canceledAt) throw CANCELED;
      const outputs = await this.engines.run(run);
      if (outputs === PARKED) return;
      outcome = { status: 'completed', outputs: await this.outputs.store(job.id, outputs), keepSeconds: this.settings.outputRetentionSeconds ?? DEFAULT_RETENTION_SECONDS };
    } catch (error) {
      // Lease lost: another worker has the job now, it is not ours to finish.
      if ((signal.aborted && signal.reason === LEASE_LOST) || error === LEASE_LOST) return;
      // Canceled (already final, refunded): ask the provider to stop too, where there is one.
      if ((signal.aborted && signal.reason === CANCELED) || error === CANCELED) return this.engines.cancelUpstream(run);
      // Shutting down: the job goes back now, for another replica (or our restart).
      if (this.stopping && signal.aborted) return this.leases.handBack(run);
      outcome = { status: 'failed', error: error instanceof EngineError ? error.userMessage : GENERIC_FAILURE };
      if (!(error instanceof EngineError)) this.logger.error({ err: error, jobId: job.id }, 'Engine crashed');
    }
    let finished: FinishedJob | null;
    try {
      finished = await this.finisher.finish(job.id, this.settings.workerId, outcome);
    } catch (error) {
      // Not written (the database kept failing it): the lease runs out and the job is queued again.
      this.logger.error({ err: error, jobId: job.id }, 'Could not write the final state; the job will run again');
      return;
    }
    if (!finished && outcome.status === 'completed') await this.outputs.discard(job.id, outcome.outputs);
  }
}
