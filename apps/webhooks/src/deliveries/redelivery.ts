import { newDeliveryId } from '@gen/webhook-signature';
import type { NewDelivery } from './delivery-attempt';
import type { DeliveryEntity } from './delivery.entity';

/** What a redelivery takes from the delivery it sends again. */
export type RedeliverySource = Pick<DeliveryEntity, 'id' | 'accountId' | 'apiKeyId' | 'event' | 'url' | 'urlSource' | 'body'> & { jobId: string };

/**
 * A redelivery of `original`: a new delivery (new delivery id, three new attempts) of the same body
 * bytes, to the same destination: the one the generation has carried since it was submitted (the
 * request's `webhook_url`, or the key's default URL at submit), not the key's default as it is now.
 * Signed at each attempt with the key's current secret, like any delivery.
 *
 * The one decision behind `POST /api/v1/generations/{id}/redeliver`, the dashboard's Redeliver
 * button and the CLI's `deliveries retry`.
 */
export function redeliveryOf(original: RedeliverySource, now: number): NewDelivery {
  return {
    id: newDeliveryId(),
    eventId: null,
    redeliveryOf: original.id,
    jobId: original.jobId,
    accountId: original.accountId,
    apiKeyId: original.apiKeyId,
    event: original.event,
    url: original.url,
    urlSource: original.urlSource,
    body: original.body,
    firstAttemptAt: now,
  };
}
