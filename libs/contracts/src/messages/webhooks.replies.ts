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

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
export const WEBHOOK_ATTEMPT_ERROR_CLASSES = ['http_status', 'timeout', 'connection', 'forbidden_destination', 'no_secret', 'interrupted'] as const;
export type WebhookAttemptErrorClass = (typeof WEBHOOK_ATTEMPT_ERROR_CLASSES)[number];
export const WEBHOOK_ATTEMPT_OUTCOMES = ['in_flight', 'succeeded', 'failed'] as const;

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
  outcome: (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];
  status_code: number | null;
  error_class: WebhookAttemptErrorClass | null;
  /** Sanitised, user-facing. */
  error: string | null;
}
