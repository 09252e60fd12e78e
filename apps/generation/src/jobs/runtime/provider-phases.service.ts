import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ModelDefinition } from '../../catalogue/catalogue';
import { EngineOutput, EngineRequest, UpstreamCheck, UpstreamNotNow, UpstreamPending, UpstreamPhases } from '../../ports/engine';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { UpstreamMetrics } from '../../metrics/upstream-metrics';
import { BindingLimits } from '../binding-limits.service';
import { JobClaimsRepository } from '../job-claims.repository';
import { JobReadsRepository } from '../job-reads.repository';
import { ParkedJobsWriter } from '../parked-jobs.writer';
import { pending } from '../upstream-pending';
import { spreadCheckDelay } from './check-spread';
import { JobProgress } from './job-progress.service';
import { QueuedWorkHint } from './queued-work-hint';
import { CANCELED, LEASE_LOST, Run } from './running-jobs';

/** A run's result when the job was parked (waiting upstream with no worker) or went back to the queue. */
export const PARKED = Symbol('parked');
/** A check that could not be made now: the job is checked again after this backoff (at least). */
const NOT_NOW_BACKOFF_MS = 500;

/**
 * A provider job in phases (docs/design/jobs.md, "Waiting upstream"): a claimed job submits (a slot of its
 * binding first, where it caps them) and is parked; a parked one due for a check reads its upstream
 * state once, and is parked again or, once it ended, collected here.
 */
@Injectable()
export class ProviderPhases {
  private readonly logger = new Logger(ProviderPhases.name);

  constructor(
    private readonly limits: BindingLimits,
    private readonly parked: ParkedJobsWriter,
    private readonly jobs: JobClaimsRepository,
    private readonly reads: JobReadsRepository,
    private readonly upstreamMetrics: UpstreamMetrics,
    private readonly progress: JobProgress,
    private readonly queuedWork: QueuedWorkHint,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  async run(run: Run, model: ModelDefinition, phases: UpstreamPhases, request: EngineRequest): Promise<EngineOutput[] | typeof PARKED> {
    const { job } = run;
    const binding = phases.binding;
    const callbackExpected = request.callbackUrl != null;
    let result: UpstreamCheck;
    if (run.kind === 'claim' && job.upstreamRef === null) {
      const slot = await this.limits.acquire(binding, job.id, phases);
      if (!slot || !(await this.limits.permit(binding, phases))) {
        // Its binding is full (or backing off): back to the queue, in its place, until a slot frees.
        if (slot) await this.limits.release(binding, job.id, phases);
        await this.handBackToQueue(run);
        return PARKED;
      }
      result = await phases.start(request);
      if (!result.ended) {
        return this.park(run, { submittedTotalMs: phases.totalTimeoutMs, checked: false, delayMs: phases.nextCheckMs(0, callbackExpected), ...pending(result) });
      }
    } else if (run.kind === 'claim') {
      // Requeued with its upstream job already made (an older version's run, or a hand-back): parked, due now.
      return this.park(run, { submittedTotalMs: phases.totalTimeoutMs, checked: false, delayMs: 0 });
    } else {
      const deadlineAt = job.upstreamDeadlineAt?.getTime();
      const checkRequest = { ...request, deadlineAt };
      if (!(await this.limits.permit(binding, phases))) return this.park(run, { submittedTotalMs: null, checked: false, delayMs: phases.nextCheckMs(0, callbackExpected) });
      try {
        result = await phases.check(checkRequest);
      } catch (error) {
        if (!(error instanceof UpstreamNotNow)) {
          this.upstreamMetrics.checked(model.id, 'failed');
          await this.limits.release(binding, job.id, phases);
          throw error;
        }
        this.upstreamMetrics.checked(model.id, 'not-now');
        const floor = Math.max(error.retryAfterMs ?? 0, NOT_NOW_BACKOFF_MS);
        const backoff = Math.max(floor, phases.nextCheckMs(job.upstreamChecks + 1, callbackExpected));
        return this.park(run, { submittedTotalMs: null, checked: true, delayMs: backoff, notBeforeMs: floor });
      }
      this.upstreamMetrics.checked(model.id, result.ended ? 'ended' : 'pending');
      if (!result.ended) {
        return this.park(run, { submittedTotalMs: null, checked: true, delayMs: phases.nextCheckMs(job.upstreamChecks + 1, callbackExpected), ...pending(result) });
      }
      request.deadlineAt = deadlineAt;
    }
    this.upstreamMetrics.upstreamEnded(model.id, job.upstreamAt);
    await this.limits.release(binding, job.id, phases);
    return phases.collect({ ...request, upstreamRef: run.upstreamRef }, result);
  }

  /** Parks the job (no lease, a next check); if it is no longer ours (canceled meanwhile, taken over), stops as such. */
  private async park(
    run: Run,
    park: { submittedTotalMs: number | null; checked: boolean; delayMs: number; notBeforeMs?: number } & UpstreamPending,
  ): Promise<typeof PARKED> {
    const signal = run.abort.signal;
    const parked = await this.parked
      .park({
        jobId: run.job.id,
        owner: this.settings.workerId,
        delayMs: spreadCheckDelay(park.delayMs, this.settings.providerCheckJitterPercent, park.notBeforeMs),
        submittedTotalMs: park.submittedTotalMs,
        checked: park.checked,
        progress: park.progress ?? null,
        queuePosition: park.queuePosition ?? null,
      })
      .catch((error: unknown) => {
        // Not the job's failure: its lease runs out and the lease reclaim parks it again (`reparkExpired`).
        this.logger.warn({ err: error, jobId: run.job.id }, 'Could not park a provider job; it is parked again when its lease expires');
        throw LEASE_LOST;
      });
    if (park.progress !== undefined || park.queuePosition !== undefined || run.job.upstreamQueuePosition !== null) {
      this.progress.announce({ ...run.job, upstreamQueuePosition: park.queuePosition ?? null }, park.progress ?? run.job.progress);
    }
    if (parked) return PARKED;
    throw signal.aborted && signal.reason === CANCELED ? CANCELED : (await this.reads.findById(run.job.id))?.canceledAt ? CANCELED : LEASE_LOST;
  }

  /** A claimed job that cannot start now (its binding is full): queued again in its place, no attempt used. */
  private async handBackToQueue(run: Run): Promise<void> {
    await this.jobs.release(this.settings.workerId, [run.job.id]);
    this.queuedWork.queued();
  }
}
