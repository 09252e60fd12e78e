import { createHmac } from 'node:crypto';
import { SIGNATURE_HEADER, SIGNATURE_PREFIX, TIMESTAMP_HEADER } from './headers';

/** The request body exactly as sent on the wire. A string is taken as its UTF-8 bytes. */
export type WebhookBody = Buffer | Uint8Array | string;

/**
 * A webhook signing secret. A string (the usual `whsec_...` value shown in the dashboard) is used
 * as the HMAC key as-is, i.e. its UTF-8 bytes, prefix included; it is not base64- or hex-decoded.
 */
export type WebhookSecret = string | Buffer | Uint8Array;

export interface SignInput {
  secret: WebhookSecret;
  /** Unix time in whole seconds, as carried in `X-Service-Timestamp`. */
  timestamp: number | string;
  body: WebhookBody;
}

/** `sha256=` followed by the lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`. */
export function sign({ secret, timestamp, body }: SignInput): string {
  return SIGNATURE_PREFIX + signatureDigest(secret, timestampToString(timestamp), body).toString('hex');
}

export interface SignatureHeadersInput {
  secret: WebhookSecret;
  body: WebhookBody;
  /** The signing time; defaults to the current time. Truncated to whole seconds. */
  now?: Date;
}

// A type alias, not an interface, so that it is assignable to `verify()`'s header record type.
export type SignatureHeaders = {
  [TIMESTAMP_HEADER]: string;
  [SIGNATURE_HEADER]: string;
};

/** The `X-Service-Timestamp` / `X-Service-Signature` pair for `body` signed at `now`. */
export function signatureHeaders({ secret, body, now = new Date() }: SignatureHeadersInput): SignatureHeaders {
  const timestamp = dateToUnixSeconds(now);
  return {
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: sign({ secret, timestamp, body }),
  };
}

/** @internal Raw 32-byte HMAC-SHA256 of `<timestamp>.<body>`; shared with `verify()`. */
export function signatureDigest(secret: WebhookSecret, timestamp: string, body: WebhookBody): Buffer {
  assertSecret(secret);
  assertBody(body);
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest();
}

/** @internal Whole Unix seconds of a Date. */
export function dateToUnixSeconds(date: Date): number {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('Invalid Date');
  return Math.floor(ms / 1000);
}

/** @internal Decimal digits only: what the timestamp header must contain. */
export const TIMESTAMP_PATTERN = /^[0-9]{1,15}$/;

function timestampToString(timestamp: number | string): string {
  if (typeof timestamp === 'number') {
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      throw new RangeError(`timestamp must be a non-negative integer number of Unix seconds, got ${timestamp}`);
    }
    return String(timestamp);
  }
  if (typeof timestamp === 'string' && TIMESTAMP_PATTERN.test(timestamp)) return timestamp;
  throw new RangeError('timestamp must be Unix seconds as an integer or a string of decimal digits');
}

/** @internal */
export function assertSecret(secret: unknown): asserts secret is WebhookSecret {
  if (typeof secret === 'string' ? secret.length === 0 : !(secret instanceof Uint8Array) || secret.length === 0) {
    throw new TypeError('The webhook secret must be a non-empty string or Buffer');
  }
}

function assertBody(body: unknown): asserts body is WebhookBody {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError(
      'The body must be the raw request body (Buffer or string) exactly as received, not a parsed object: ' +
        're-serialising JSON changes its bytes and the signature no longer matches',
    );
  }
}
