import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { BatchFinishedEvent, Events } from '@gen/contracts';
import { ConflictError } from '@gen/errors';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { OUTBOX_SETTINGS, OutboxSettings } from '../config/outbox.settings';
import { JobsService } from '../jobs/runtime/jobs.service';
import { OutboxRelayService } from '../outbox/outbox-relay.service';
import type { OutboxMessage } from '../outbox/outbox.repository';
import { BatchFeedRepository } from './batch-feed.repository';
import { BatchRow, toBatchView } from './batch-view';

/**
 * A batch's end: once every line has an outcome, its final status and its `batch.completed` event
 * are written in one transaction (the outbox), and the event leaves from this process's relay at once.
 * Also the canceling of a canceled batch's queued jobs, through the cancel a customer's DELETE uses.
 */
@Injectable()
export class BatchEnding {
  private readonly logger = new Logger(BatchEnding.name);

  constructor(
    private readonly feed: BatchFeedRepository,
    private readonly jobs: JobsService,
    private readonly relay: OutboxRelayService,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
    @Inject(OUTBOX_SETTINGS) private readonly outbox: OutboxSettings,
  ) {}

  /** Ends every running batch whose lines all have an outcome. */
  async endAll(): Promise<void> {
    for (const id of await this.feed.endable()) await this.end(id);
  }

  /** Ends the batch if it is done; the final row, or null when it is not done (or ended already). */
  async end(batchId: string): Promise<BatchRow | null> {
    const ended = await this.feed.end(batchId, (batch) => batchFinishedEvent(batch), { owner: this.settings.workerId, leaseMs: this.outbox.leaseMs });
    if (!ended) return null;
    this.relay.publish([ended.event]);
    return ended.batch;
  }

  /** Cancels these queued jobs of the account (refunded through their generation.failed events); one that started meanwhile finishes. */
  async cancelJobs(accountId: string, jobIds: readonly string[]): Promise<void> {
    for (const jobId of jobIds) {
      try {
        await this.jobs.cancel({ accountId, jobId });
      } catch (error) {
        // Finished first: its outcome stands.
        if (!(error instanceof ConflictError)) throw error;
        this.logger.debug({ jobId }, 'A canceled batch job had already finished');
      }
    }
  }
}

/** The `batch.completed` event of an ended batch (its final counts are on the row). */
export function batchFinishedEvent(batch: BatchRow): OutboxMessage {
  const id = randomUUID();
  const payload: BatchFinishedEvent = {
    eventId: id,
    event: Events.batchCompleted,
    accountId: batch.account_id,
    apiKeyId: batch.api_key_id,
    webhookUrl: batch.webhook_url,
    batch: toBatchView(batch, null),
  };
  return { id, pattern: Events.batchCompleted, payload };
}
