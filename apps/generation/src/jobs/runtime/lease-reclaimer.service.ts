import { Inject, Injectable, Logger } from '@nestjs/common';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { JobMetrics } from '../../metrics/job-metrics';
import { JobFinisher } from '../job-finisher.service';
import { JobJanitorRepository } from '../job-janitor.repository';
import { ParkedJobsRepository } from '../parked-jobs.repository';
import { JobClaimer } from './job-claimer.service';

/** How many expired leases one pass takes on. */
const RECLAIM_BATCH = 50;

/**
 * Jobs of workers that died (their lease expired): requeued (the claimers are nudged), parked again
 * when their upstream job exists, or failed with a refund once their attempts are used up. The
 * janitor runs it every poll interval (and logs a failed pass); safe to run from every replica at
 * once: each step is guarded in SQL.
 */
@Injectable()
export class LeaseReclaimer {
  private readonly logger = new Logger(LeaseReclaimer.name);

  constructor(
    private readonly jobs: JobJanitorRepository,
    private readonly parked: ParkedJobsRepository,
    private readonly finisher: JobFinisher,
    private readonly claimer: JobClaimer,
    private readonly metrics: JobMetrics,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  async reclaimExpired(): Promise<void> {
    for (const { id, attempts } of await this.jobs.expiredLeases(RECLAIM_BATCH)) {
      if (attempts >= this.settings.maxAttempts) {
        await this.finisher.finish(id, null, { status: 'failed', error: 'The generation could not be completed. Your credits were refunded.' });
      } else if (this.settings.providerParking && (await this.parked.reparkExpired(id))) {
        // Its upstream job exists: checked again from the database, never submitted twice.
        this.logger.warn({ jobId: id, attempts }, 'Parked again a provider job whose worker stopped');
      } else if (await this.jobs.requeueExpired(id)) {
        this.metrics.requeued();
        this.logger.warn({ jobId: id, attempts }, 'Requeued a job whose worker stopped');
        this.claimer.nudge();
      }
    }
  }
}
