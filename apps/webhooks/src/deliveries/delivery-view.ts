import type { WebhookAttemptView, WebhookDeliveryView } from '@gen/contracts';
import { MAX_ATTEMPTS } from './retry-schedule';
import type { AttemptEntity } from './attempt.entity';
import type { DeliveryEntity } from './delivery.entity';

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/** A delivery and its attempts as the delivery log shows them (never the body's signature or secret). */
export function toDeliveryView(delivery: DeliveryEntity, attempts: AttemptEntity[]): WebhookDeliveryView {
  return {
    id: delivery.id,
    event: delivery.event,
    url: delivery.url,
    status: delivery.status,
    attempts_made: delivery.attemptsMade,
    max_attempts: MAX_ATTEMPTS,
    next_attempt_at: iso(delivery.nextAttemptAt),
    created_at: iso(delivery.createdAt) as string,
    finished_at: iso(delivery.finishedAt),
    redelivery_of: delivery.redeliveryOf,
    test: delivery.test,
    attempts: attempts
      .filter((a) => a.deliveryId === delivery.id)
      .sort((a, b) => a.number - b.number)
      .map(toAttemptView),
  };
}

export function toAttemptView(attempt: AttemptEntity): WebhookAttemptView {
  const inFlight = attempt.durationMs === null && attempt.errorClass === null;
  return {
    number: attempt.number,
    started_at: iso(attempt.startedAt) as string,
    duration_ms: attempt.durationMs,
    outcome: inFlight ? 'in_flight' : attempt.errorClass === null ? 'succeeded' : 'failed',
    status_code: attempt.statusCode,
    error_class: attempt.errorClass,
    error: attempt.error,
  };
}
