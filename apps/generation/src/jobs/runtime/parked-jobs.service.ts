import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '@gen/observability';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { BindingLimits } from '../binding-limits.service';
import { JobRunner } from './job-runner.service';
import { RunningJobs } from './running-jobs';
import { ParkedJobsRepository, WakeOutcome } from '../parked-jobs.repository';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { modelsOnBindings } from '../binding-models';

/** How often bindings' shared backoffs are read and stale binding slots swept. */
const LIMITS_REFRESH_MS = 1_000;

/**
 * The poll scheduler of parked provider jobs, one per replica (docs/design/jobs.md, "Waiting upstream").
 * Every `PROVIDER_CHECK_INTERVAL_MS` (and at once after a wake) it claims the parked jobs that are
 * due, as many as the process has free provider slots, in batches (one statement each, `SKIP
 * LOCKED`, so replicas share them), and hands them to the runner, which checks each upstream once and
 * parks it again, or collects and finishes it. `wake` makes a parked job due now (a provider's
 * callback), on whichever replica it lands.
 */
@Injectable()
export class ParkedJobs implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ParkedJobs.name);
  /** Claims of due jobs: one at a time, every PROVIDER_CHECK_INTERVAL_MS and at each nudge. */
  private readonly checks: PeriodicTask;
  private readonly limitsRefresh = new PeriodicTask({
    name: 'Binding limits refresh',
    intervalMs: LIMITS_REFRESH_MS,
    run: () => this.refreshLimits(),
    onError: (error) => this.logger.warn({ err: error }, 'Reading binding limits failed'),
  });
  private stopping = false;

  constructor(
    private readonly repository: ParkedJobsRepository,
    private readonly runner: JobRunner,
    private readonly running: RunningJobs,
    private readonly limits: BindingLimits,
    private readonly catalogue: CatalogueService,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {
    this.checks = new PeriodicTask({
      name: 'Parked job checks',
      intervalMs: settings.providerCheckIntervalMs,
      run: () => this.pump(),
      onError: (error) => this.logger.warn({ err: error }, 'Claiming parked jobs failed'),
    });
    // Slots freed while due jobs are left over: claim again without waiting for the next tick.
    running.onFreed((pool) => {
      if (pool === 'io' && this.moreDue && this.running.freeForChecks() >= Math.max(1, Math.floor(this.settings.providerConcurrency / 4))) this.nudge();
    });
  }

  /** The last claim stopped for want of slots, not of due jobs. */
  private moreDue = false;

  onApplicationBootstrap(): void {
    if (!this.settings.providerParking) return;
    this.checks.start();
    this.limitsRefresh.start();
    this.nudge();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await Promise.all([this.checks.stop(), this.limitsRefresh.stop()]);
  }

  /**
   * Makes a parked job due now, for the next check of any replica (this one looks at once):
   * `woken`; `not-parked` when it is being checked or collected right now, or is final; `unknown`
   * when there is no such job.
   */
  async wake(jobId: string): Promise<WakeOutcome> {
    const outcome = await this.repository.wake(jobId);
    if (outcome === 'woken') this.nudge();
    return outcome;
  }

  /** Claims due jobs now (coalesces concurrent calls). */
  nudge(): void {
    if (this.stopping) return;
    this.checks.trigger();
  }

  /** Claims due jobs while there are some and the process has provider slots for them. */
  private async pump(): Promise<void> {
    for (;;) {
      const free = this.running.freeForChecks();
      this.moreDue = free <= 0;
      if (this.stopping || free <= 0) return;
      const asked = Math.min(free, this.settings.providerCheckBatch);
      const skip = modelsOnBindings(this.catalogue, this.limits.backingOff());
      const jobs = await this.repository.claimDue(this.settings.workerId, this.settings.leaseMs, asked, skip);
      if (jobs.length > 0) this.runner.check(jobs);
      if (jobs.length < asked) return;
    }
  }

  private async refreshLimits(): Promise<void> {
    await this.limits.refresh();
    await this.repository.sweepSlots();
  }
}
