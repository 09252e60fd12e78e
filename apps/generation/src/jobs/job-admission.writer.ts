import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { isRefusedValue, Lane, LanedBatchQueue } from '@gen/persistence';
import { DEFAULT_JOB_ADMISSION_SETTINGS, JOB_ADMISSION_SETTINGS, JobAdmissionSettings } from '../config/job-admission.settings';
import { Admission, Admitted, AdmitOutcome, ClaimOffer, JobAdmissionRepository, NewJob } from './job-admission.repository';

/**
 * Group commit of admissions: each submit pushes its own, and those that arrive together are
 * written by one `admit_batch` statement and one synchronous commit (JobAdmissionRepository).
 * A batch's lines go in the background lane: a submit never waits behind them.
 */
@Injectable()
export class JobAdmissionWriter implements OnModuleDestroy {
  private readonly admissions: LanedBatchQueue<Admission, Admitted>;

  constructor(
    private readonly repository: JobAdmissionRepository,
    @Optional() @Inject(JOB_ADMISSION_SETTINGS) settings: JobAdmissionSettings | null = null,
  ) {
    // A batch PostgreSQL refuses for one item's value is run again item by item: only that item fails.
    this.admissions = new LanedBatchQueue((items) => this.write(items), {
      maxBatch: (settings ?? DEFAULT_JOB_ADMISSION_SETTINGS).maxBatch,
      isolate: isRefusedValue,
    });
  }

  /**
   * Queues the job unless the account already has `parallelLimit + maxWaiting` jobs queued or
   * running (its parallel slots plus the queue cap), and with an offer, claims the account's head
   * jobs for the offer's owner in the same statement (migration 1764740000000, admit-batch.function.sql).
   *
   * Not the slot row claims lock: a claim moves a job from queued to processing, which leaves the
   * count unchanged, and a finish only lowers it, so admissions need to exclude each other only,
   * and a burst of submits never delays the claims that drain the queue. The claim made here is
   * the same as JobClaimsRepository.claim's (the account's row locked, its limit and order kept),
   * except that it waits for the row instead of skipping the account; an admission may be given an
   * older queued job of its account instead of its own (the account's head goes first).
   * A job id that already exists is left as it is ('exists': a repeated submit).
   */
  async admit(job: NewJob, maxWaiting: number, offer?: ClaimOffer, lane: Lane = 'interactive'): Promise<AdmitOutcome> {
    const admitted = await this.admissions.push({ job, maxWaiting, offer }, lane);
    if (admitted.kind !== 'queue-full') return admitted;
    return { ...admitted, retryAfterSeconds: await this.repository.nextSlotEstimate(job.accountId) };
  }

  /** Waits for every queued admission to be written (before the DataSource closes). */
  async onModuleDestroy(): Promise<void> {
    await this.admissions.drain();
  }

  private async write(items: readonly Admission[]): Promise<Admitted[]> {
    // Every offer of a process names the same owner and lease; items of another owner go alone.
    const owner = items.find((i) => i.offer)?.offer;
    if (items.some((i) => i.offer && (i.offer.owner !== owner?.owner || i.offer.leaseMs !== owner.leaseMs))) {
      return Promise.all(items.map(async (item) => (await this.write([item]))[0]));
    }
    return this.repository.admitBatch(items, owner);
  }
}
