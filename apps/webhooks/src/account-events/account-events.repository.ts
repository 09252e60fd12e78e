import { Inject, Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { DeliveryEntity } from '../deliveries/delivery.entity';
import { WEBHOOKS_DB } from '../config/webhooks.tokens';

/** Reads of account-event deliveries (no generation, not a test; index `deliveries_account_events`). */
@Injectable()
export class AccountEventsRepository {
  constructor(@Inject(WEBHOOKS_DB) private readonly db: DataSource) {}

  latest(accountId: string, limit: number): Promise<DeliveryEntity[]> {
    return this.db
      .getRepository(DeliveryEntity)
      .find({ where: { accountId, jobId: IsNull(), test: false }, order: { createdAt: 'DESC', id: 'DESC' }, take: limit });
  }
}
