import { isUuid } from '@gen/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { ListTestWebhooksReply, SendTestWebhookRequest, WebhookDeliveryView } from '@gen/contracts';
import { ConflictError, NotFoundError, ValidationError } from '@gen/errors';
import { newDeliveryId } from '@gen/webhook-signature';
import { validateWebhookUrl } from '@gen/webhook-policy';
import { DeliveryReadsRepository } from '../deliveries/delivery-reads.repository';
import { toDeliveryView } from '../deliveries/delivery-view';
import { serialiseWebhookBody } from '../deliveries/webhook-body';
import { DeliveryDispatcher } from '../dispatch/delivery-dispatcher.service';
import { destinationPolicy, ResolvedWebhooksSettings } from '../config/webhooks.settings';
import { WEBHOOKS_SETTINGS } from '../config/webhooks.tokens';
import { newTestEventId, testEventBody } from './test-event-body';

export const MAX_TEST_LIST = 20;

function checkIds(accountId: unknown, apiKeyId: unknown): void {
  if (!isUuid(accountId)) throw new ValidationError('accountId must be a UUID');
  if (!isUuid(apiKeyId)) throw new ValidationError('apiKeyId must be a UUID');
}

/**
 * Test events: a signed `generation.completed`-shaped delivery marked as a test, made on request to
 * check a receiver. It is an ordinary delivery to the dispatcher (stored, signed at each attempt
 * with the key's current secret, the same three attempts and schedule), listed with its key's tests.
 */
@Injectable()
export class TestEventsService {
  constructor(
    private readonly repository: DeliveryReadsRepository,
    private readonly dispatcher: DeliveryDispatcher,
    @Inject(WEBHOOKS_SETTINGS) private readonly settings: ResolvedWebhooksSettings,
  ) {}

  /** Sends a test event to `url` for the key; 409 while another test of the key is in progress. */
  async send(request: SendTestWebhookRequest): Promise<WebhookDeliveryView> {
    checkIds(request.accountId, request.apiKeyId);
    if (typeof request.url !== 'string') throw new ValidationError('url: must be text.');
    const checked = validateWebhookUrl(request.url, destinationPolicy(this.settings));
    if (!checked.ok) throw new ValidationError(`url: ${checked.reason}`);
    const now = Date.now();
    const eventId = newTestEventId();
    const id = newDeliveryId();
    const inserted = await this.dispatcher.submit({
      id,
      eventId,
      redeliveryOf: null,
      jobId: null,
      accountId: request.accountId,
      apiKeyId: request.apiKeyId,
      event: 'generation.completed',
      url: checked.url.href,
      urlSource: 'request',
      body: serialiseWebhookBody(testEventBody(eventId, new Date(now))),
      firstAttemptAt: now,
      test: true,
    });
    if (!inserted) {
      const pending = (await this.repository.listTestsForKey(request.accountId, request.apiKeyId, 1))[0];
      throw new ConflictError(
        `A test event of this key is still being delivered${pending ? ` (${pending.id})` : ''}; wait until it has finished.`,
      );
    }
    const created = await this.repository.findForAccount(request.accountId, id);
    if (!created) throw new NotFoundError('No such delivery.');
    // Attempt 1 usually started with the insert: show it (in flight, or already done).
    return toDeliveryView(created, await this.repository.attemptsOf(request.accountId, [id]));
  }

  /** The key's latest test events with their attempts, newest first. */
  async list(accountId: string, apiKeyId: string, limit: number): Promise<ListTestWebhooksReply> {
    checkIds(accountId, apiKeyId);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TEST_LIST) throw new ValidationError(`limit must be between 1 and ${MAX_TEST_LIST}`);
    const deliveries = await this.repository.listTestsForKey(accountId, apiKeyId, limit);
    const attempts = await this.repository.attemptsOf(accountId, deliveries.map((d) => d.id));
    return { data: deliveries.map((d) => toDeliveryView(d, attempts)) };
  }
}
