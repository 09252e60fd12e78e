import { Inject, Injectable } from '@nestjs/common';
import type { JobStatus } from '@gen/contracts';
import { ConflictError, NotFoundError } from '@gen/errors';
import { finishedEvent } from '../jobs/job-events';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { JobFinishRepository } from '../jobs/job-finish.repository';
import { OutboxRepository, OutboxRow } from '../outbox/outbox.repository';
import { JobAdminRepository, OperatorJobRow } from './job-admin.repository';

/** What the customer reads when an operator fails their job. */
export const OPERATOR_FAILURE_MESSAGE = 'The generation could not be completed. Your credits were refunded.';

export interface JobInspection {
  job: OperatorJobRow;
  /** True when a processing job's lease has expired (its worker is gone; reclaim will requeue it). */
  leaseExpired: boolean;
  events: OutboxRow[];
}

/**
 * The operator's view of jobs (CLI `jobs list|inspect|fail`). Failing a job goes through the same
 * path as a worker's failure: JobFinishRepository.finish writes the failed state and its
 * generation.failed event in one transaction, the outbox relay publishes it, billing releases the
 * hold (the refund) and webhooks notify the customer.
 */
@Injectable()
export class JobAdminService {
  constructor(
    private readonly admin: JobAdminRepository,
    private readonly jobs: JobFinishRepository,
    private readonly outbox: OutboxRepository,
    /** The base of output URLs in the records its events carry, as the service has it. */
    @Inject(GENERATION_SETTINGS) private readonly settings: Pick<GenerationSettings, 'cdnBaseUrl'>,
  ) {}

  list(options: { status?: JobStatus; olderThanSeconds?: number; accountId?: string; limit: number }): Promise<OperatorJobRow[]> {
    return this.admin.list(options);
  }

  async inspect(jobId: string): Promise<JobInspection> {
    const job = await this.admin.find(jobId);
    if (!job) throw new NotFoundError(`No job with id "${jobId}".`);
    return {
      job,
      leaseExpired: job.status === 'processing' && job.lease_expires_at !== null && new Date(job.lease_expires_at) < new Date(),
      events: await this.outbox.eventsOfJob(jobId),
    };
  }

  /**
   * Fails a queued or processing job with a refund. A processing job whose worker still holds a
   * live lease is refused unless `force` (the worker may be about to finish it; if forced, its late
   * result is discarded because only a non-final job can be finished).
   */
  async fail(jobId: string, options: { force: boolean }): Promise<JobInspection> {
    const current = await this.inspect(jobId);
    if (current.job.status === 'completed' || current.job.status === 'failed') {
      throw new ConflictError(`Job ${jobId} is already ${current.job.status}; nothing to fail.`);
    }
    if (current.job.status === 'processing' && !current.leaseExpired && !options.force) {
      throw new ConflictError(
        `Job ${jobId} is processing under a live lease (worker ${current.job.lease_owner}); pass --force to fail it anyway.`,
      );
    }
    const finished = await this.jobs.finish(jobId, null, { status: 'failed', error: OPERATOR_FAILURE_MESSAGE }, (job) =>
      finishedEvent(job, this.settings.cdnBaseUrl),
    );
    if (!finished) throw new ConflictError(`Job ${jobId} reached a final state meanwhile; nothing changed.`);
    return this.inspect(jobId);
  }
}
