import { Inject, Injectable } from '@nestjs/common';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { JobMetrics } from '../metrics/job-metrics';
import { OutboxRelayService } from '../outbox/outbox-relay.service';
import { finishedEvent } from './job-events';
import { JobFinishWriter } from './job-finish.writer';
import type { FinishedJob, JobOutcome } from './job-finish.repository';
import type { JobEntity } from './job.entity';
import { SyncWaits } from './sync-waits';

/**
 * The one way a finished job is made known: its final state and event are written (group-committed,
 * `JobFinishWriter`), then it is counted, its event handed to this process's outbox relay (leased to
 * it by the write) and its synchronous waiters answered. A job finished by another statement (a
 * cancel) is made known through `publish` alone.
 */
@Injectable()
export class JobFinisher {
  private readonly listeners: Array<(job: JobEntity) => void> = [];

  constructor(
    private readonly writer: JobFinishWriter,
    private readonly metrics: JobMetrics,
    private readonly relay: OutboxRelayService,
    private readonly waits: SyncWaits,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  /**
   * Finishes the job if `owner` still holds it (null: no owner check, a reclaim), and makes it known.
   * Null if it was not there to finish; throws when the database kept failing the write.
   */
  async finish(jobId: string, owner: string | null, outcome: JobOutcome): Promise<FinishedJob | null> {
    // A synchronous caller waiting here goes first: a finish nobody waits on (an async job, a batch line) can wait a flush.
    const lane = this.waits.isAwaited(jobId) ? 'interactive' : 'background';
    const finished = await this.writer.finish({ jobId, owner, outcome, event: (job) => finishedEvent(job, this.settings.cdnBaseUrl) }, lane);
    if (finished) this.publish(finished);
    return finished;
  }

  /** A job whose final state and event (leased to this process) are committed: counted, its event sent now, its waiters answered. */
  publish(finished: FinishedJob): void {
    this.metrics.finished(finished.job);
    this.relay.publish([finished.event]);
    this.waits.wake(finished.job);
    for (const listener of this.listeners) listener(finished.job);
  }

  /** Called with every job this process finishes or cancels, after its commit (the batch feeder's nudge: in memory, no statement). */
  onFinished(listener: (job: JobEntity) => void): void {
    this.listeners.push(listener);
  }

  /** Resolves once every finish asked for so far has its answer. */
  drain(): Promise<void> {
    return this.writer.drain();
  }
}
