import { Injectable } from '@nestjs/common';
import { AccountLowBalanceEvent, AccountWebhooksReply, AccountWebhooksRequest, Events, isUuid, ListWebhookDeliveriesReply, Subjects } from '@gen/contracts';
import { ValidationError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { newDeliveryId } from '@gen/webhook-signature';
import { DeliveryReadsRepository } from '../deliveries/delivery-reads.repository';
import { toDeliveryView } from '../deliveries/delivery-view';
import { DeliveryDispatcher } from '../dispatch/delivery-dispatcher.service';
import { AccountEventsRepository } from './account-events.repository';
import { lowBalanceBody } from './account-event-body';

/**
 * Account events (today `account.low_balance`): one delivery per destination the gateway names for
 * the account (each distinct default webhook URL of its live keys that can sign, signed with that
 * key's secret), through the same dispatcher as generations' webhooks: the same attempts, leases,
 * retries and delivery log.
 */
@Injectable()
export class AccountEventsService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly deliveries: DeliveryReadsRepository,
    private readonly repository: AccountEventsRepository,
  ) {}

  /**
   * Resolves once every delivery is stored, so the event is acknowledged only then; a failure (the
   * gateway not answering, say) throws and the event comes again. Idempotent: the delivery's event
   * id is the event's id and the key's, unique, so a repeated event makes no second delivery. The
   * transport checked the event's shape (AccountLowBalanceEvent) before this runs.
   */
  async onLowBalance(event: AccountLowBalanceEvent): Promise<void> {
    const { data } = await this.rpc.request<AccountWebhooksReply, AccountWebhooksRequest>(Subjects.authAccountWebhooksGet, { accountId: event.accountId });
    const body = lowBalanceBody(event);
    const now = Date.now();
    await Promise.all(
      data.map((destination) =>
        this.dispatcher.submit({
          id: newDeliveryId(),
          eventId: `${event.eventId}:${destination.apiKeyId}`,
          redeliveryOf: null,
          jobId: null,
          accountId: event.accountId,
          apiKeyId: destination.apiKeyId,
          event: Events.accountLowBalance,
          url: destination.url,
          urlSource: 'key',
          body,
          firstAttemptAt: now,
        }),
      ),
    );
  }

  /** The account's latest account-event deliveries, newest first, with their attempts. */
  async list(accountId: string, limit: number): Promise<ListWebhookDeliveriesReply> {
    if (!isUuid(accountId)) throw new ValidationError('accountId must be a UUID');
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new ValidationError('limit must be from 1 to 100');
    const deliveries = await this.repository.latest(accountId, limit);
    const attempts = await this.deliveries.attemptsOf(accountId, deliveries.map((d) => d.id));
    return { data: deliveries.map((d) => toDeliveryView(d, attempts)) };
  }
}
