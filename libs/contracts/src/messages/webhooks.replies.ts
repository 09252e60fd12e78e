import type { EventName } from './subjects';

/** What the webhooks service answers (the delivery log as API clients and the dashboard see it). */
export interface ListWebhookDeliveriesReply {
  /** Oldest first: the original delivery, then any redeliveries. Empty when none was made. */
  data: WebhookDeliveryView[];
}
export type RedeliverWebhookReply = WebhookDeliveryView;
export type SendTestWebhookReply = WebhookDeliveryView;
export interface ListTestWebhooksReply {
  data: WebhookDeliveryView[];
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type WebhookAttemptErrorClass =
  | 'http_status'
  | 'timeout'
  | 'connection'
  | 'forbidden_destination'
  | 'no_secret'
  | 'interrupted';

/** A delivery as the delivery log shows it (snake_case: it goes to API clients as is). */
export interface WebhookDeliveryView {
  /** The `X-Service-Delivery-Id` of every attempt. */
  id: string;
  event: EventName;
  url: string;
  status: WebhookDeliveryStatus;
  attempts_made: number;
  max_attempts: number;
  /** ISO 8601; null once finished. */
  next_attempt_at: string | null;
  created_at: string;
  finished_at: string | null;
  /** For a redelivery, the id of the delivery whose body it resends. */
  redelivery_of: string | null;
  /** A test event (`POST /api/v1/webhooks/test`), sent with `X-Service-Test: true`. */
  test: boolean;
  attempts: WebhookAttemptView[];
}
export interface WebhookAttemptView {
  number: number;
  started_at: string;
  /** Null while the attempt is in flight. */
  duration_ms: number | null;
  outcome: 'in_flight' | 'succeeded' | 'failed';
  status_code: number | null;
  error_class: WebhookAttemptErrorClass | null;
  /** Sanitised, user-facing. */
  error: string | null;
}
