import type { Logger } from '@nestjs/common';
import type { ExhaustedDelivery } from '../deliveries/delivery-attempt';
import type { DeliveryMetrics } from '../metrics/delivery-metrics';
import { MAX_ATTEMPTS } from '../deliveries/retry-schedule';
import type { AttemptOutcome } from './webhook-sender';

/**
 * The structured line (and metric) of a delivery that failed for good, whether its third attempt
 * failed (`last` is its outcome) or was interrupted (`last` null). The generation is unaffected.
 */
export function reportFailedForGood(
  logger: Logger,
  metrics: DeliveryMetrics | undefined,
  d: Pick<ExhaustedDelivery, 'jobId' | 'accountId' | 'event' | 'url'> & { deliveryId: string },
  last: Pick<AttemptOutcome, 'statusCode' | 'errorClass'> | null,
): void {
  metrics?.deliveryFinished('failed');
  logger.warn(
    {
      msg: 'webhook delivery failed',
      deliveryId: d.deliveryId,
      jobId: d.jobId,
      accountId: d.accountId,
      event: d.event,
      // The origin only: a URL's path or query may carry the customer's own tokens.
      destination: safeOrigin(d.url),
      attempts: MAX_ATTEMPTS,
      lastStatusCode: last?.statusCode ?? null,
      lastErrorClass: last?.errorClass ?? 'interrupted',
    },
    'Webhook delivery failed after 3 attempts',
  );
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}
