import { Injectable } from '@nestjs/common';
import { BatchFinishedEvent, Events } from '@gen/contracts';
import { newDeliveryId } from '@gen/webhook-signature';
import { DeliveryDispatcher } from '../dispatch/delivery-dispatcher.service';
import { batchCompletedBody, serialiseBatchCompletedBody } from './batch-event-body';

/**
 * Batch events (`batch.completed`, docs/design/batches.md): one delivery to the batch's destination,
 * signed with the creating key's secret (the attempt looks it up as a generation's does), through the
 * same dispatcher as generations' webhooks: the same attempts, leases, retries and delivery log.
 */
@Injectable()
export class BatchEventsService {
  constructor(private readonly dispatcher: DeliveryDispatcher) {}

  /**
   * Resolves once the delivery is stored, so the event is acknowledged only then. Idempotent: the
   * delivery's event id is the event's (unique), so a repeated event makes no second delivery. A batch
   * with no destination (null `webhookUrl`) sends nothing. The transport checked the event's shape
   * (BatchFinishedEvent) before this runs.
   */
  async onBatchFinished(event: BatchFinishedEvent): Promise<void> {
    if (event.webhookUrl === null) return;
    await this.dispatcher.submit({
      id: newDeliveryId(),
      eventId: event.eventId,
      redeliveryOf: null,
      jobId: null,
      accountId: event.accountId,
      apiKeyId: event.apiKeyId,
      event: Events.batchCompleted,
      url: event.webhookUrl,
      // Resolved by the gateway when the batch was created, as a generation's is at submit.
      urlSource: 'job',
      body: serialiseBatchCompletedBody(batchCompletedBody(event)),
      firstAttemptAt: Date.now(),
    });
  }
}
