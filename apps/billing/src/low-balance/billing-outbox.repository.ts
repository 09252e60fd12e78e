import { Inject, Injectable } from '@nestjs/common';
import { OutboxStore } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { BILLING_DB } from '../config/billing.tokens';

/**
 * Billing's outbox (the shared `OutboxStore`): the `account.low_balance` events that the trigger of
 * migration 1764980000000 writes inside whatever statement moves a balance below its threshold.
 */
@Injectable()
export class BillingOutboxRepository extends OutboxStore {
  constructor(@Inject(BILLING_DB) db: DataSource) {
    super(db);
  }
}
