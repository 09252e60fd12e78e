import { Injectable } from '@nestjs/common';
import { DeliveryAttemptsRepository } from '../deliveries/delivery-attempts.repository';
import { redeliveryOf } from '../deliveries/redelivery';
import { DeliveriesAdminRepository } from './deliveries-admin.repository';

export interface RetryOutcome {
  job_id: string;
  account_id: string;
  failed_delivery_id: string;
  /** The new delivery (a redelivery of the failed one), when queued. */
  delivery_id: string | null;
  /** Scheme and host only: a URL's path or query may carry the customer's own tokens. */
  destination: string;
  status: 'queued' | 'would_queue' | 'skipped';
  reason: string | null;
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * Retries failed webhook deliveries in bulk (CLI `deliveries retry --since`), the way a customer's
 * redeliver does one (`redeliveryOf`): a new delivery of the same body (new delivery id, signed at
 * each attempt with the key's current secret), to the generation's destination. The rows are
 * written here, unclaimed; the running webhooks service's dispatcher picks them up on its next poll.
 */
@Injectable()
export class DeliveriesAdminService {
  constructor(
    private readonly admin: DeliveriesAdminRepository,
    private readonly deliveries: DeliveryAttemptsRepository,
  ) {}

  async retryFailedSince(since: Date, options: { accountId?: string; limit: number; dryRun: boolean }): Promise<RetryOutcome[]> {
    const failed = await this.admin.failedSince(since, options);
    const outcomes: RetryOutcome[] = [];
    for (const d of failed) {
      const base = { job_id: d.job_id, account_id: d.account_id, failed_delivery_id: d.id, destination: origin(d.url) };
      if (options.dryRun) {
        outcomes.push({ ...base, delivery_id: null, status: 'would_queue', reason: null });
        continue;
      }
      const redelivery = redeliveryOf(
        { id: d.id, jobId: d.job_id, accountId: d.account_id, apiKeyId: d.api_key_id, event: d.event, url: d.url, urlSource: d.url_source, body: d.body },
        Date.now(),
      );
      const { inserted } = await this.deliveries.insert([redelivery]);
      outcomes.push(
        inserted.has(redelivery.id)
          ? { ...base, delivery_id: redelivery.id, status: 'queued', reason: null }
          : { ...base, delivery_id: null, status: 'skipped', reason: 'a redelivery of this generation is already in progress' },
      );
    }
    return outcomes;
  }
}
