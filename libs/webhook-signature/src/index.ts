/**
 * Signing and verification of the service's webhook requests (both schemes: the X-Service-* headers
 * and Standard Webhooks). The service's own code, not a published package: the webhooks service
 * signs with it and the tests verify with it. Customers verify with `@generation-service/sdk`
 * (libs/sdk) or any Standard Webhooks library (docs/guide/webhook-receivers.md).
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_ID_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_PREFIX,
  TEST_EVENT_ID_PREFIX,
  TEST_HEADER,
  TIMESTAMP_HEADER,
  WEBHOOK_HEADERS,
  WEBHOOK_USER_AGENT,
} from './headers';
export type { WebhookEventName } from './headers';
export { sign, signatureHeaders } from './sign';
export type { SignInput, SignatureHeaders, SignatureHeadersInput, WebhookBody, WebhookSecret } from './sign';
export { verify } from './verify';
export {
  STANDARD_ID_HEADER,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_SIGNATURE_VERSION,
  STANDARD_TIMESTAMP_HEADER,
  signStandard,
  standardSecretKey,
  standardSignatureHeaders,
} from './standard';
export type { StandardSignatureHeaders } from './standard';
export type { VerifiedWebhook, VerifyOptions, WebhookHeaders } from './verify';
export {
  WebhookMalformedHeaderError,
  WebhookMissingHeaderError,
  WebhookSignatureError,
  WebhookSignatureMismatchError,
  WebhookTimestampOutOfToleranceError,
} from './errors';
export type { WebhookSignatureErrorReason } from './errors';
export { DELIVERY_ID_PREFIX, WEBHOOK_SECRET_PREFIX, newDeliveryId, newWebhookSecret, randomBase62 } from './ids';
