/**
 * Wire constants of the service's webhook requests (spec: Events, Request headers). Header names are
 * written in their canonical case; HTTP header names are case-insensitive and Node lower-cases them
 * on the receiving side, which `verify()` handles.
 */
export const EVENT_HEADER = 'X-Service-Event';
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';
export const SIGNATURE_HEADER = 'X-Service-Signature';
export const DELIVERY_ID_HEADER = 'X-Service-Delivery-Id';
/**
 * `true` on a test event (sent on request, from the dashboard or `POST /api/v1/webhooks/test`);
 * absent otherwise. Not covered by the signature: the body's `id` (which starts with `test_` on a
 * test event) is.
 */
export const TEST_HEADER = 'X-Service-Test';
/** The `id` of a test event's body starts with this (it is no generation's id). */
export const TEST_EVENT_ID_PREFIX = 'test_';

/** The `User-Agent` every webhook request carries. */
export const WEBHOOK_USER_AGENT = 'Service-Webhook/1.0';

/** All header names in one object, for code that builds or reads the whole set. */
export const WEBHOOK_HEADERS = {
  event: EVENT_HEADER,
  timestamp: TIMESTAMP_HEADER,
  signature: SIGNATURE_HEADER,
  deliveryId: DELIVERY_ID_HEADER,
} as const;

/** The signature header value is this prefix followed by 64 lowercase hex digits. */
export const SIGNATURE_PREFIX = 'sha256=';

/** Default replay tolerance, in seconds, between the signed timestamp and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Event names carried in `X-Service-Event` and in the body's `event` field. */
export type WebhookEventName = 'generation.completed' | 'generation.failed' | 'account.low_balance';
