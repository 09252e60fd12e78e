import { isUuid } from '@gen/contracts';
import { Injectable } from '@nestjs/common';
import type { GenerationFinishedEvent, ListWebhookDeliveriesReply, WebhookDeliveryView } from '@gen/contracts';
import { ConflictError, NotFoundError, ValidationError } from '@gen/errors';
import { newDeliveryId } from '@gen/webhook-signature';
import { DeliveryDispatcher } from '../dispatch/delivery-dispatcher.service';
import { DeliveryReadsRepository } from '../deliveries/delivery-reads.repository';
import { toDeliveryView } from '../deliveries/delivery-view';
import { redeliveryOf } from '../deliveries/redelivery';
import { serialiseWebhookBody, webhookBody } from '../deliveries/webhook-body';

/** Deliveries: made from finished generations' events, listed and redelivered for their account. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly repository: DeliveryReadsRepository,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  /**
   * generation.completed / generation.failed: one delivery to the destination the event carries
   * (resolved by the gateway at submit: the request's `webhook_url`, else the key's default URL
   * then), else none. The body is built and stored here, once. Idempotent: an event seen again
   * changes nothing (the insert skips it). Resolves once the delivery is stored, so that the
   * event is acknowledged only then; a failure throws, and the event comes again. The transport
   * checked the event's shape (GenerationFinishedEvent) before this runs.
   */
  async onFinished(event: GenerationFinishedEvent): Promise<void> {
    if (!event.webhookUrl) return; // no destination: no delivery (polling is the client's way to learn the outcome)
    const now = Date.now();
    await this.dispatcher.submit({
      id: newDeliveryId(),
      eventId: event.eventId,
      redeliveryOf: null,
      jobId: event.record.id,
      accountId: event.accountId,
      apiKeyId: event.apiKeyId,
      event: event.event,
      url: event.webhookUrl,
      urlSource: 'job',
      body: serialiseWebhookBody(webhookBody(event, new Date(now))),
      firstAttemptAt: now,
    });
  }

  async list(accountId: string, jobId: string): Promise<ListWebhookDeliveriesReply> {
    checkIds(accountId, jobId);
    const deliveries = await this.repository.listForJob(accountId, jobId);
    const attempts = await this.repository.attemptsOf(accountId, deliveries.map((d) => d.id));
    return { data: deliveries.map((d) => toDeliveryView(d, attempts)) };
  }

  /**
   * Sends the generation's event again as a new delivery (new delivery id, three new attempts) with
   * the same body bytes, to the generation's destination (see `redeliveryOf`).
   */
  async redeliver(accountId: string, jobId: string): Promise<WebhookDeliveryView> {
    checkIds(accountId, jobId);
    const deliveries = await this.repository.listForJob(accountId, jobId);
    const latest = deliveries[deliveries.length - 1];
    if (!latest) {
      throw new ConflictError(
        'This generation has no webhook delivery to send again: it had no webhook destination when it finished.',
      );
    }
    const pending = deliveries.find((d) => d.status === 'pending');
    if (pending) {
      throw new ConflictError(`A delivery of this generation is still in progress (${pending.id}); wait until it has finished.`);
    }
    const redelivery = redeliveryOf({ ...latest, jobId }, Date.now());
    if (!(await this.dispatcher.submit(redelivery))) throw new ConflictError('A redelivery of this generation is already in progress.');
    const created = await this.repository.findForAccount(accountId, redelivery.id);
    if (!created) throw new NotFoundError('No such delivery.');
    // Attempt 1 usually started with the insert: show it (in flight, or already done).
    return toDeliveryView(created, await this.repository.attemptsOf(accountId, [redelivery.id]));
  }
}

function checkIds(accountId: unknown, jobId: unknown): void {
  if (!isUuid(accountId)) throw new ValidationError('accountId must be a UUID');
  if (!isUuid(jobId)) throw new ValidationError('jobId must be a UUID');
}
