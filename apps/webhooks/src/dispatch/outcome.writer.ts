import type { DeliveryAttemptsRepository } from '../deliveries/delivery-attempts.repository';
import type { AttemptResult, ClaimedAttempt } from '../deliveries/delivery-attempt';
import { BatchQueue } from '@gen/persistence';

/**
 * Records attempts' outcomes, grouped: the outcomes of attempts that end together are written in one
 * statement (`recordAttempts`, committed without waiting for the disk), up to `recordBatch` at a
 * time and `recordConcurrency` statements at once.
 */
export class OutcomeWriter {
  private readonly queue: BatchQueue<{ claim: ClaimedAttempt; result: AttemptResult }, boolean>;

  constructor(repository: DeliveryAttemptsRepository, settings: { recordBatch: number; recordConcurrency: number }) {
    this.queue = new BatchQueue(
      async (batch) => {
        const recorded = await repository.recordAttempts(batch);
        return batch.map((x) => recorded.has(x.claim.deliveryId));
      },
      { maxBatch: settings.recordBatch, maxConcurrent: settings.recordConcurrency },
    );
  }

  /** Resolves to false when the claim's lease had run out (its process was presumed dead): nothing was changed. */
  record(claim: ClaimedAttempt, result: AttemptResult): Promise<boolean> {
    return this.queue.push({ claim, result });
  }

  /** Resolves when every outcome pushed so far is written. */
  idle(): Promise<void> {
    return this.queue.drain();
  }
}
