import { Injectable, Logger } from '@nestjs/common';
import type { GenerationFinishedEvent, ListWebhookDeliveriesReply, WebhookDeliveryView } from '@gen/contracts';
import { ConflictError, NotFoundError, ValidationError } from '@gen/errors';
import { newDeliveryId } from '@gen/webhook-signature';
import { DeliveryDispatcher } from '../dispatch/delivery-dispatcher.service';
import { KeyWebhookSettingsService } from '../keys/key-webhook-settings.service';
import { DeliveriesRepository } from './deliveries.repository';
import type { DestinationSource } from './delivery.entity';
import { toDeliveryView } from './delivery-view';
import { isFinishedEventName, serialiseWebhookBody, webhookBody } from './webhook-body';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Deliveries: made from finished generations' events, listed and redelivered for their account. */
@Injectable()
export class DeliveriesService {
  private readonly logger = new Logger(DeliveriesService.name);

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly keys: KeyWebhookSettingsService,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  /**
   * generation.completed / generation.failed: one delivery to the request's `webhook_url`, else to
   * the key's default URL, else none. The body is built and stored here, once. Idempotent: an event
   * seen again changes nothing. A failure (the gateway cannot say what the key's URL is) throws, so
   * the event is redelivered.
   */
  async onFinished(event: GenerationFinishedEvent): Promise<void> {
    if (!isWellFormed(event)) {
      this.logger.error({ eventId: (event as { eventId?: unknown } | null)?.eventId }, 'Ignoring a malformed generation event');
      return;
    }
    let url = event.webhookUrl;
    let urlSource: DestinationSource = 'request';
    if (!url) {
      // An event seen again asks the gateway nothing (with a URL on the event, the insert below is
      // a no-op for it, which is cheaper than a read first).
      if (await this.repository.existsForEvent(event.eventId)) return;
      url = (await this.keys.get(event.apiKeyId)).defaultWebhookUrl;
      urlSource = 'key';
    }
    if (!url) return; // no destination: no delivery (polling is the client's way to learn the outcome)
    const now = Date.now();
    await this.dispatcher.submit({
      id: newDeliveryId(),
      eventId: event.eventId,
      redeliveryOf: null,
      jobId: event.record.id,
      accountId: event.accountId,
      apiKeyId: event.apiKeyId,
      event: event.event,
      url,
      urlSource,
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
   * the same body bytes, to the current destination: the request's `webhook_url` if the generation
   * had one, else the key's default URL as it is now.
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
    let url: string | null = latest.url;
    if (latest.urlSource === 'key') url = (await this.keys.get(latest.apiKeyId)).defaultWebhookUrl;
    if (!url) {
      throw new ConflictError(
        'The API key of this generation has no default webhook URL any more; set one in the dashboard (Settings, API Keys).',
      );
    }
    const now = Date.now();
    const id = newDeliveryId();
    const inserted = await this.dispatcher.submit({
      id,
      eventId: null,
      redeliveryOf: latest.id,
      jobId,
      accountId,
      apiKeyId: latest.apiKeyId,
      event: latest.event,
      url,
      urlSource: latest.urlSource,
      body: latest.body,
      firstAttemptAt: now,
    });
    if (!inserted) throw new ConflictError('A redelivery of this generation is already in progress.');
    const created = await this.repository.findForAccount(accountId, id);
    if (!created) throw new NotFoundError('No such delivery.');
    // Attempt 1 usually started with the insert: show it (in flight, or already done).
    return toDeliveryView(created, await this.repository.attemptsOf(accountId, [id]));
  }
}

function checkIds(accountId: unknown, jobId: unknown): void {
  if (typeof accountId !== 'string' || !UUID.test(accountId)) throw new ValidationError('accountId must be a UUID');
  if (typeof jobId !== 'string' || !UUID.test(jobId)) throw new ValidationError('jobId must be a UUID');
}

function isWellFormed(event: GenerationFinishedEvent | null | undefined): event is GenerationFinishedEvent {
  return (
    !!event &&
    typeof event.eventId === 'string' &&
    event.eventId.length > 0 &&
    isFinishedEventName(event.event) &&
    typeof event.accountId === 'string' &&
    typeof event.apiKeyId === 'string' &&
    (event.webhookUrl === null || event.webhookUrl === undefined || typeof event.webhookUrl === 'string') &&
    !!event.record &&
    typeof event.record.id === 'string'
  );
}
