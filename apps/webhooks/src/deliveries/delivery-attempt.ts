import type { EventName, WebhookAttemptErrorClass } from '@gen/contracts';
import type { DestinationSource } from './delivery.entity';

export interface NewDelivery {
  id: string;
  /** Null for a redelivery (then `redeliveryOf` is set). */
  eventId: string | null;
  redeliveryOf: string | null;
  /** Null for a test event. */
  jobId: string | null;
  accountId: string;
  apiKeyId: string;
  event: EventName;
  url: string;
  urlSource: DestinationSource;
  body: Buffer;
  /** Epoch ms of attempt 1 (now). */
  firstAttemptAt: number;
  /** A test event (POST /api/v1/webhooks/test): no generation, sent with `X-Service-Test: true`. Default false. */
  test?: boolean;
}

/** A delivery claimed for one attempt: what the attempt needs, and the token that proves the claim. */
export interface ClaimedAttempt {
  deliveryId: string;
  /** Null for a test event. */
  jobId: string | null;
  accountId: string;
  apiKeyId: string;
  event: EventName;
  url: string;
  body: Buffer;
  /** 1, 2 or 3: the attempt being made. */
  number: number;
  /** A test event: the request carries `X-Service-Test: true`. */
  test: boolean;
  /** Epoch ms the attempt was due (for measuring schedule error). */
  dueAt: number;
  leaseToken: string;
}

export interface AttemptResult {
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  errorClass: WebhookAttemptErrorClass | null;
  error: string | null;
  /** Epoch ms of the next attempt; null when the delivery is finished. */
  nextAttemptAt: number | null;
  succeeded: boolean;
}

export interface ExhaustedDelivery {
  id: string;
  jobId: string | null;
  accountId: string;
  event: EventName;
  url: string;
}

export const INTERRUPTED_MESSAGE =
  'The service stopped while this attempt was in flight; it may or may not have reached the receiver.';
