import { Inject, Injectable } from '@nestjs/common';
import { isRefusedValue, Lane, LanedBatchQueue } from '@gen/persistence';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { OUTBOX_SETTINGS, OutboxSettings } from '../config/outbox.settings';
import { JOB_FINISHER_SETTINGS, JobFinisherSettings } from '../config/job-finisher.settings';
import { FinishedJob, FinishRequest, JobFinishRepository } from './job-finish.repository';

/**
 * The workers' finishes, group-committed: finishes that arrive while a transaction commits go
 * together in the next one, so under load one synchronous commit (one WAL flush) makes many final
 * states durable, and a lone finish waits for nothing but the current tick. The events are leased to
 * this process's outbox relay, which publishes them right after (`JobFinisher`, the only caller, hands them over).
 *
 * A batch the database refuses for one item's values is run again item by item, so only that item
 * fails. A batch that failed for the database's own reasons is tried again, each item on its own
 * promise, `attempts` times in all; then the item fails, and its job is not lost: its worker's lease
 * runs out and the job is queued again (docs/design/durability.md). A retry after a commit whose answer was
 * lost finds the job final and answers null, like any finish that found nothing to do.
 */
@Injectable()
export class JobFinishWriter {
  private readonly queue: LanedBatchQueue<FinishRequest, FinishedJob | null>;

  constructor(
    private readonly jobs: JobFinishRepository,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
    @Inject(OUTBOX_SETTINGS) private readonly outbox: OutboxSettings,
    @Inject(JOB_FINISHER_SETTINGS) private readonly finisher: JobFinisherSettings,
  ) {
    this.queue = new LanedBatchQueue((requests) => this.jobs.finishMany(requests, { owner: this.settings.workerId, leaseMs: this.outbox.leaseMs }), {
      maxBatch: finisher.maxBatch,
      isolate: isRefusedValue,
    });
  }

  /**
   * Resolves once the final state and its event are durable: the job and its event, or null if it
   * was not there to finish. `interactive`: a caller waits for this job (a synchronous submit); its
   * finish never queues behind the others (a batch's, finishing in waves).
   */
  async finish(request: FinishRequest, lane: Lane = 'interactive'): Promise<FinishedJob | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.queue.push(request, lane);
      } catch (error) {
        if (attempt >= this.finisher.attempts || isRefusedValue(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, this.finisher.retryDelayMs * 2 ** (attempt - 1)));
      }
    }
  }

  /** Resolves once every finish pushed so far has its answer. */
  drain(): Promise<void> {
    return this.queue.drain();
  }
}
