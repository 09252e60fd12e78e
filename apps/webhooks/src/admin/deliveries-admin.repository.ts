import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import type { DestinationSource } from '../deliveries/delivery.entity';
import { WEBHOOKS_DB } from '../config/webhooks.tokens';

/** A generation whose latest delivery failed (all attempts used), as the operator retries it. */
export interface FailedDelivery {
  id: string;
  job_id: string;
  account_id: string;
  api_key_id: string;
  event: 'generation.completed' | 'generation.failed';
  url: string;
  url_source: DestinationSource;
  body: Buffer;
  finished_at: Date;
}

/** Operator queries across accounts (CLI `deliveries retry`); customer reads always take the account id. */
@Injectable()
export class DeliveriesAdminRepository {
  constructor(@Inject(WEBHOOKS_DB) private readonly db: DataSource) {}

  /**
   * Generations whose most recent delivery (original or redelivery) ended failed at or after
   * `since`, oldest first. A generation already redelivered successfully, or with a delivery still
   * pending, is not listed; nor are test, account and batch events (they belong to no generation: with
   * them, `DISTINCT ON (job_id)` would take every delivery without one for a single generation's).
   */
  failedSince(since: Date, options: { accountId?: string; limit: number }): Promise<FailedDelivery[]> {
    return sqlRows<FailedDelivery>(
      this.db,
      `SELECT * FROM (
         SELECT DISTINCT ON (job_id) id, job_id, account_id, api_key_id, event, url, url_source, body, status, finished_at
         FROM deliveries
         WHERE ($2::uuid IS NULL OR account_id = $2) AND job_id IS NOT NULL
         ORDER BY job_id, created_at DESC
       ) latest
       WHERE status = 'failed' AND finished_at >= $1
       ORDER BY finished_at
       LIMIT $3`,
      [since, options.accountId ?? null, options.limit],
    );
  }
}
