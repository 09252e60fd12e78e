import { Inject, Injectable } from '@nestjs/common';
import { Events } from '@gen/contracts';
import { DataSource, IsNull } from 'typeorm';
import { DeliveryEntity } from '../deliveries/delivery.entity';
import { WEBHOOKS_DB } from '../config/webhooks.tokens';

/**
 * Reads of account-event deliveries (no generation, not a test; index `deliveries_account_events`).
 * Batch events have no generation either: they belong to a batch, not to this log.
 */
@Injectable()
export class AccountEventsRepository {
  constructor(@Inject(WEBHOOKS_DB) private readonly db: DataSource) {}

  latest(accountId: string, limit: number): Promise<DeliveryEntity[]> {
    return this.db
      .getRepository(DeliveryEntity)
      .find({ where: { accountId, jobId: IsNull(), test: false, event: Events.accountLowBalance }, order: { createdAt: 'DESC', id: 'DESC' }, take: limit });
  }
}
