import { timingSafeEqual } from 'node:crypto';
import {
  WebhookMalformedHeaderError,
  WebhookMissingHeaderError,
  WebhookSignatureMismatchError,
  WebhookTimestampOutOfToleranceError,
} from './errors';
import {
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_ID_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_PREFIX,
  TIMESTAMP_HEADER,
} from './headers';
import {
  TIMESTAMP_PATTERN,
  WebhookBody,
  WebhookSecret,
  assertSecret,
  dateToUnixSeconds,
  signatureDigest,
} from './sign';

/**
 * Request headers as most frameworks expose them: Node's `IncomingHttpHeaders` (Fastify, Express,
 * `node:http`), any plain object (names matched case-insensitively), or a fetch `Headers` object.
 */
export type WebhookHeaders =
  | Readonly<Record<string, string | readonly string[] | number | undefined>>
  | { get(name: string): string | null };

export interface VerifyOptions {
  /**
   * Largest accepted distance, in seconds, between the signed timestamp and `now`, in the past or
   * the future. Default 300. A distance of exactly `toleranceSeconds` is accepted.
   */
  toleranceSeconds?: number;
  /** The receiver's current time; defaults to the system clock. */
  now?: Date;
}

/** What a successful `verify()` returns. Only `timestamp` is covered by the signature. */
export interface VerifiedWebhook {
  /** The signed `X-Service-Timestamp`, Unix seconds. */
  timestamp: number;
  /** `X-Service-Delivery-Id`, if present: the key to drop duplicate deliveries. */
  deliveryId: string | undefined;
  /** `X-Service-Event`, if present. */
  event: string | undefined;
}

const SIGNATURE_PATTERN = /^sha256=[0-9a-f]{64}$/;

/**
 * Verifies a webhook request and returns its timestamp, delivery id and event; throws a
 * `WebhookSignatureError` subclass (see its `reason`) if the request must be rejected.
 *
 * `rawBody` must be the body bytes exactly as received: do not parse and re-serialise the JSON.
 *
 * `secret` may be a list. The request is accepted if any of them matches, and every secret is always
 * tried (no early exit), so timing does not reveal which matched. A list is for the receiver's own
 * rollout: the service signs each attempt with the key's *current* secret only and switches
 * immediately when the secret is renewed, so keep the old secret in the list only for as long as your
 * own deployment needs to pick up the new one.
 */
export function verify(
  rawBody: WebhookBody,
  headers: WebhookHeaders,
  secret: WebhookSecret | readonly WebhookSecret[],
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = new Date() }: VerifyOptions = {},
): VerifiedWebhook {
  const secrets = secretList(secret);
  if (typeof toleranceSeconds !== 'number' || Number.isNaN(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError('toleranceSeconds must be a non-negative number');
  }
  const nowSeconds = dateToUnixSeconds(now);

  const timestampValue = requiredHeader(headers, TIMESTAMP_HEADER);
  if (!TIMESTAMP_PATTERN.test(timestampValue)) {
    throw new WebhookMalformedHeaderError(TIMESTAMP_HEADER, 'expected Unix time in seconds (decimal digits)');
  }
  const signatureValue = requiredHeader(headers, SIGNATURE_HEADER);
  if (!SIGNATURE_PATTERN.test(signatureValue)) {
    throw new WebhookMalformedHeaderError(SIGNATURE_HEADER, `expected "${SIGNATURE_PREFIX}" and 64 lowercase hex digits`);
  }

  // 32 bytes: the pattern above guarantees 64 hex digits. Each candidate is an HMAC-SHA256 of the
  // same length, so timingSafeEqual never throws and every comparison takes the same time.
  const received = Buffer.from(signatureValue.slice(SIGNATURE_PREFIX.length), 'hex');
  let matched = false;
  for (const candidate of secrets) {
    const expected = signatureDigest(candidate, timestampValue, rawBody);
    // The comparison is on the left of `||`, so it runs for every secret whatever the earlier outcome.
    matched = timingSafeEqual(expected, received) || matched;
  }
  if (!matched) throw new WebhookSignatureMismatchError();

  // Checked after the signature, so this error means "authentic but stale or early" (a replay, or a
  // wrong clock), which is what a receiver wants to know when it investigates.
  const timestamp = Number(timestampValue);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    throw new WebhookTimestampOutOfToleranceError(timestamp, nowSeconds, toleranceSeconds);
  }

  return {
    timestamp,
    deliveryId: optionalHeader(headers, DELIVERY_ID_HEADER),
    event: optionalHeader(headers, EVENT_HEADER),
  };
}

function secretList(secret: WebhookSecret | readonly WebhookSecret[]): readonly WebhookSecret[] {
  const list = Array.isArray(secret) ? (secret as readonly WebhookSecret[]) : [secret as WebhookSecret];
  if (list.length === 0) throw new TypeError('At least one webhook secret is required');
  for (const item of list) assertSecret(item);
  return list;
}

function requiredHeader(headers: WebhookHeaders, name: string): string {
  const values = headerValues(headers, name);
  if (values.length === 0 || (values.length === 1 && values[0] === '')) throw new WebhookMissingHeaderError(name);
  if (values.length > 1) throw new WebhookMalformedHeaderError(name, 'the header appears more than once');
  return values[0]!;
}

function optionalHeader(headers: WebhookHeaders, name: string): string | undefined {
  const values = headerValues(headers, name);
  return values.length === 1 && values[0] !== '' ? values[0] : undefined;
}

/** Every value of header `name`, matched case-insensitively across all keys. */
function headerValues(headers: WebhookHeaders, name: string): string[] {
  if (headers === null || typeof headers !== 'object') throw new TypeError('headers must be an object');
  if (typeof headers.get === 'function') {
    const value = (headers as { get(name: string): string | null }).get(name);
    return value === null ? [] : [value];
  }
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Readonly<Record<string, unknown>>)) {
    if (key.toLowerCase() !== wanted || value === undefined || value === null) continue;
    if (Array.isArray(value)) values.push(...value.map(String));
    else values.push(String(value));
  }
  return values;
}
