import { newDeliveryId } from '@gen/webhook-signature';
import type { DataSource } from 'typeorm';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
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
 * redeliver does one: a new delivery of the same body (new delivery id, signed at each attempt with
 * the key's current secret), to the key's current default URL when the original went there. The
 * rows are written here; the running webhooks service's dispatcher picks them up on its next poll.
 */
export class DeliveriesAdminService {
  private readonly admin: DeliveriesAdminRepository;
  private readonly deliveries: DeliveriesRepository;

  constructor(dataSource: DataSource) {
    this.admin = new DeliveriesAdminRepository(dataSource);
    this.deliveries = new DeliveriesRepository(dataSource);
  }

  async retryFailedSince(
    since: Date,
    options: { accountId?: string; limit: number; dryRun: boolean },
    /** The key's current default webhook URL (null when it has none any more). */
    keyUrl: (apiKeyId: string) => Promise<string | null>,
  ): Promise<RetryOutcome[]> {
    const failed = await this.admin.failedSince(since, options);
    const outcomes: RetryOutcome[] = [];
    for (const d of failed) {
      const url = d.url_source === 'key' ? await keyUrl(d.api_key_id) : d.url;
      const base = { job_id: d.job_id, account_id: d.account_id, failed_delivery_id: d.id, destination: origin(url ?? d.url) };
      if (!url) {
        outcomes.push({ ...base, delivery_id: null, status: 'skipped', reason: 'the API key has no default webhook URL any more' });
        continue;
      }
      if (options.dryRun) {
        outcomes.push({ ...base, delivery_id: null, status: 'would_queue', reason: null });
        continue;
      }
      const id = newDeliveryId();
      const inserted = await this.deliveries.insert({
        id,
        eventId: null,
        redeliveryOf: d.id,
        jobId: d.job_id,
        accountId: d.account_id,
        apiKeyId: d.api_key_id,
        event: d.event,
        url,
        urlSource: d.url_source,
        body: d.body,
        firstAttemptAt: Date.now(),
      });
      outcomes.push(
        inserted
          ? { ...base, delivery_id: id, status: 'queued', reason: null }
          : { ...base, delivery_id: null, status: 'skipped', reason: 'a redelivery of this generation is already in progress' },
      );
    }
    return outcomes;
  }
}
