import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DomainError } from '@gen/errors';
import { PeriodicTask } from '@gen/observability';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { OutputStorage } from '@gen/storage';
import { JobJanitorRepository } from '../job-janitor.repository';
import { JobsService } from './jobs.service';
import { LeaseReclaimer } from './lease-reclaimer.service';

const DEADLINE_BATCH = 100;
const OUTPUT_BATCH = 500;
const DEFAULT_SWEEP_MS = 60_000;

/**
 * Time-driven job work, on every replica (each statement is safe to run from several at once):
 * expired leases of dead workers are reclaimed (`LeaseReclaimer`), jobs past their `Cancel-After`
 * deadline are canceled (queued or running, whoever runs them), and outputs past their retention
 * are deleted from storage (their URLs then answer 410).
 */
@Injectable()
export class JobJanitorService implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(JobJanitorService.name);
  private readonly reclaims: PeriodicTask;
  private readonly deadlines: PeriodicTask;
  private readonly outputs: PeriodicTask;

  constructor(
    private readonly jobs: JobJanitorRepository,
    private readonly service: JobsService,
    private readonly storage: OutputStorage,
    private readonly reclaimer: LeaseReclaimer,
    @Inject(GENERATION_SETTINGS) settings: GenerationSettings,
  ) {
    const failed = (what: string) => (error: unknown) => this.logger.warn({ err: error }, what);
    this.reclaims = new PeriodicTask({
      name: 'Lease reclaim',
      intervalMs: settings.pollIntervalMs,
      run: () => this.reclaimer.reclaimExpired(),
      onError: failed('Reclaiming expired leases failed'),
    });
    this.deadlines = new PeriodicTask({ name: 'Deadline cancels', intervalMs: settings.pollIntervalMs, run: () => this.cancelPastDeadline(), onError: failed('Janitor pass failed') });
    this.outputs = new PeriodicTask({
      name: 'Output sweep',
      intervalMs: settings.outputSweepIntervalMs ?? DEFAULT_SWEEP_MS,
      run: () => this.deleteExpiredOutputs(),
      onError: failed('Janitor pass failed'),
    });
  }

  onApplicationBootstrap(): void {
    this.reclaims.start();
    this.deadlines.start();
    this.outputs.start();
  }

  /** Shutdown began: no more reclaims (this process's own leases are handed back by its runtime). */
  beforeApplicationShutdown(): Promise<void> {
    return this.reclaims.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.deadlines.stop(), this.outputs.stop()]);
  }

  /** Cancels every unfinished job whose deadline has passed; returns how many. */
  async cancelPastDeadline(): Promise<number> {
    let canceled = 0;
    for (const job of await this.jobs.pastDeadline(DEADLINE_BATCH)) {
      try {
        await this.service.cancel({ accountId: job.account_id, jobId: job.id }, 'deadline');
        canceled++;
      } catch (error) {
        // Finished meanwhile (409) or gone: nothing to cancel.
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return canceled;
  }

  /** Deletes the outputs past their retention, a batch at a time; returns how many. */
  async deleteExpiredOutputs(): Promise<number> {
    let deleted = 0;
    for (;;) {
      // One batch delete per batch of keys (DeleteObjects on S3), before the rows forget them.
      const batch = await this.jobs.sweepExpiredOutputs(OUTPUT_BATCH, (keys) => this.storage.deleteMany(keys));
      deleted += batch;
      if (batch < OUTPUT_BATCH) break;
    }
    if (deleted > 0) this.logger.log({ deleted }, 'Deleted outputs past their retention');
    return deleted;
  }
}
