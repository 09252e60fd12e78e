import { Inject, Injectable, Logger } from '@nestjs/common';
import { PeriodicTask } from '@gen/observability';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { BindingLimits } from '../binding-limits.service';
import { modelsOnBindings } from '../binding-models';
import type { JobEntity } from '../job.entity';
import type { ClaimOffer } from '../job-admission.repository';
import { JobClaimsRepository } from '../job-claims.repository';
import { JobRunner } from './job-runner.service';
import { LeaseKeeper } from './lease-keeper.service';
import { QueuedWorkHint } from './queued-work-hint';
import { Pool, RunningJobs } from './running-jobs';

/**
 * Claims queued jobs while this process has free slots and hands them to the `JobRunner`, fairly
 * across accounts (each account's parallel slots respected in SQL). Work is found both by a local
 * nudge (a submit left queued, a reclaimed job, a slot freed while work may be queued: QueuedWorkHint)
 * and by polling (other replicas, restarts); a submit's admission may claim its job at once with a
 * worker `offer`ed here.
 */
@Injectable()
export class JobClaimer {
  private readonly logger = new Logger(JobClaimer.name);
  /** The claim loop: one pump at a time, every poll interval and at each nudge (one more after the current pump). */
  private readonly claims: PeriodicTask;

  constructor(
    private readonly jobs: JobClaimsRepository,
    private readonly running: RunningJobs,
    private readonly runner: JobRunner,
    private readonly leases: LeaseKeeper,
    private readonly catalogue: CatalogueService,
    private readonly limits: BindingLimits,
    private readonly hint: QueuedWorkHint,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {
    this.claims = new PeriodicTask({
      name: 'Job claims',
      intervalMs: settings.pollIntervalMs,
      run: () => this.pump(),
      onError: (error) => this.logger.error({ err: error }, 'Claiming jobs failed'),
    });
    // A freed slot looks for work only when some may be queued: most slots free with the queue empty,
    // and each look is a statement (a provider job's CPU, measured in bench:providers-scale).
    running.onFreed(() => {
      if (!this.hint.empty && !this.running.isClosed) this.claims.trigger();
    });
  }

  start(): void {
    this.claims.start();
    this.nudge();
  }

  /** Shutdown, first step: no more claims or offers; resolves once a claim under way has ended. */
  async stop(): Promise<void> {
    this.running.close();
    await this.claims.stop();
  }

  /**
   * A claim for a submit's admission (JobAdmissionWriter.admit) when this process has a free worker, so
   * that a job that can start at once costs no separate claim; undefined when full or stopping. The
   * worker stays promised until `accept`.
   */
  offer(): ClaimOffer | undefined {
    if (!this.running.reserve()) return undefined;
    return { owner: this.settings.workerId, leaseMs: this.settings.leaseMs, max: 1 };
  }

  /** Runs the jobs an admission claimed with `offer` (none if it claimed none, or failed), and frees the promise. */
  accept(offer: ClaimOffer | undefined, claimed: readonly JobEntity[]): void {
    if (offer) this.running.unreserve();
    if (this.running.isClosed && claimed.length > 0) {
      // Shutdown began during the admission: back to the queue at once, for another replica.
      this.leases.releaseClaimed(claimed.map((job) => job.id));
      return;
    }
    for (const job of claimed) this.runner.run(job);
  }

  /** A job may be queued: looks for claimable work now (coalesces concurrent calls). */
  nudge(): void {
    this.hint.queued();
    if (this.running.isClosed) return;
    this.claims.trigger();
  }

  /**
   * Claims while this process has capacity. Each round visits the accounts with queued work, oldest
   * waiting first, and gives each an equal share of the free capacity (at least one job), so one
   * account's backlog cannot starve the others; several jobs of one account come in one claim.
   * With parking on, each pool claims only the jobs of its own models (a full pool leaves its
   * models' jobs queued), and the jobs of a binding whose `maxInFlight` is reached stay queued.
   */
  private async pump(): Promise<void> {
    const stopping = () => this.running.isClosed;
    // Nothing queued at all: the other pool's pass has nothing to claim either.
    let nothingQueued = false;
    for (const pass of this.claimPasses()) {
      // Another round only while some account gave all it was asked for (it may have more).
      let more = true;
      while (more && !nothingQueued && !stopping() && this.running.free(pass.pool) > 0) {
        more = false;
        const look = this.hint.look();
        const accounts = await this.jobs.accountsWithQueuedJobs(100);
        this.hint.looked(look, accounts.length > 0);
        nothingQueued = accounts.length === 0;
        const share = Math.max(1, Math.floor(this.running.free(pass.pool) / Math.max(1, accounts.length)));
        for (const accountId of accounts) {
          const capacity = this.running.free(pass.pool);
          if (stopping() || capacity <= 0) break;
          const asked = Math.min(share, capacity);
          const jobs = await this.jobs.claim(accountId, this.settings.workerId, this.settings.leaseMs, asked, pass.skip);
          for (const job of jobs) this.runner.run(job);
          if (jobs.length === asked) more = true;
        }
      }
    }
  }

  /** The claims a pump makes: one per pool with room, each leaving out the other pool's models and blocked bindings. */
  private claimPasses(): Array<{ pool: Pool; skip: string[] }> {
    if (!this.settings.providerParking) return [{ pool: 'cpu', skip: [] }];
    const byPool: Record<Pool, string[]> = { cpu: [], io: [] };
    for (const model of this.catalogue.definitions()) byPool[this.running.poolOfModel(model)].push(model.id);
    const blocked = modelsOnBindings(this.catalogue, this.limits.blockedBindings());
    const passes: Array<{ pool: Pool; skip: string[] }> = [];
    if (this.running.free('io') > 0) passes.push({ pool: 'io', skip: [...byPool.cpu, ...blocked] });
    if (this.running.free('cpu') > 0) passes.push({ pool: 'cpu', skip: byPool.io });
    return passes;
  }
}
