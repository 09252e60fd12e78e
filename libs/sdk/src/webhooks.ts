import { WebhookVerificationError } from './errors.js';
import type { WebhookEventBody } from './types.js';

/** A `generation.completed` event: the output is at `output_url`. */
export type GenerationCompletedEvent = WebhookEventBody & { event: 'generation.completed'; status: 'completed'; output_url: string; error: null };
/** A `generation.failed` event (a cancellation too): `credits_charged` is 0 and `error` says why. */
export type GenerationFailedEvent = WebhookEventBody & { event: 'generation.failed'; status: 'failed'; output_url: null; error: string };
/**
 * An `account.low_balance` event: the account's available credits fell below the alert threshold set
 * for it (once per crossing). `id` is the event's id, the same in every delivery of it.
 */
export interface AccountLowBalanceEvent {
  event: 'account.low_balance';
  id: string;
  account_id: string;
  /** The threshold crossed, in credits. */
  threshold: number;
  /** The available credits right after the crossing. */
  available: number;
  created_at: string;
}
/** Every event the service sends, told apart by `event`. */
export type WebhookEvent = GenerationCompletedEvent | GenerationFailedEvent | AccountLowBalanceEvent;

/** Request headers: a fetch `Headers`, or a plain object such as Node's `IncomingHttpHeaders` (names in any case). */
export type WebhookRequestHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookInput {
  /** The raw request body, exactly as received (a string or bytes): never a parsed and re-serialised object. */
  payload: string | Uint8Array | ArrayBuffer;
  headers: WebhookRequestHeaders;
  /**
   * The key's signing secret (`whsec_...`), or several: the request is accepted when any matches
   * (all are always compared). A list is for your own rollout of a renewed secret.
   */
  secret: string | readonly string[];
  /** Largest distance, in seconds, between the signed timestamp and your clock; default 300. */
  toleranceSeconds?: number;
  /** Your clock; default now. */
  now?: Date;
}

export interface VerifiedWebhook {
  /** The verified body, parsed. */
  event: WebhookEvent;
  /** `X-Service-Delivery-Id` or `webhook-id`: the same on every attempt; drop duplicates by it. */
  deliveryId: string;
  /** The signed timestamp, Unix seconds. */
  timestamp: number;
  /** Which of the key's schemes signed it: `service` (X-Service-*) or `standard` (Standard Webhooks). */
  scheme: 'service' | 'standard';
  /** A test event (sent on request from the dashboard or POST /api/v1/webhooks/test). */
  test: boolean;
}

const WEBHOOK_SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

/**
 * Verifies a webhook request of either scheme a key can use, and returns its event:
 * - `service` (the default): `X-Service-Signature: sha256=<hex HMAC-SHA256 of "<X-Service-Timestamp>.<body>">`,
 *   keyed with the whole `whsec_...` string;
 * - `standard` (Standard Webhooks): `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
 *   keyed with the base64 after `whsec_`, decoded; several space-separated signatures during a rotation.
 *
 * Signatures are compared in constant time, every candidate against every secret; then the timestamp
 * must be within `toleranceSeconds` of `now`. Throws `WebhookVerificationError` (answer 400) when the
 * request must be rejected. Uses Web Crypto only (Node 20+, browsers, Deno, Bun, workers).
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<VerifiedWebhook> {
  const { headers, toleranceSeconds = 300, now = new Date() } = input;
  const body = rawBytes(input.payload);
  const secrets = typeof input.secret === 'string' ? [input.secret] : [...input.secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.length === 0)) throw new TypeError('secret: a non-empty string, or a list of them');
  if (!(toleranceSeconds >= 0)) throw new RangeError('toleranceSeconds must be a non-negative number');

  const standard = header(headers, 'webhook-signature') !== null;
  let timestampText: string;
  let deliveryId: string;
  let matched = false;
  if (standard) {
    deliveryId = required(headers, 'webhook-id');
    timestampText = required(headers, 'webhook-timestamp');
    checkTimestampFormat(timestampText, 'webhook-timestamp');
    const received = required(headers, 'webhook-signature')
      .split(' ')
      .filter((part) => part.startsWith('v1,'))
      .map((part) => base64Bytes(part.slice(3)))
      .filter((bytes): bytes is Uint8Array => bytes !== null && bytes.length === 32);
    if (received.length === 0) throw new WebhookVerificationError('malformed_header', 'webhook-signature: expected "v1," and a base64 HMAC-SHA256');
    const signed = concat(encoder.encode(`${deliveryId}.${timestampText}.`), body);
    for (const secret of secrets) {
      const key = base64Bytes(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret);
      if (!key) throw new TypeError('secret: a Standard Webhooks secret is whsec_ followed by base64');
      const expected = await hmacSha256(key, signed);
      for (const candidate of received) matched = constantTimeEqual(expected, candidate) || matched;
    }
  } else {
    timestampText = required(headers, 'x-service-timestamp');
    checkTimestampFormat(timestampText, 'X-Service-Timestamp');
    const signature = required(headers, 'x-service-signature');
    if (!/^sha256=[0-9a-f]{64}$/.test(signature)) throw new WebhookVerificationError('malformed_header', 'X-Service-Signature: expected "sha256=" and 64 lowercase hex digits');
    deliveryId = header(headers, 'x-service-delivery-id') ?? '';
    const received = hexBytes(signature.slice('sha256='.length));
    const signed = concat(encoder.encode(`${timestampText}.`), body);
    for (const secret of secrets) matched = constantTimeEqual(await hmacSha256(encoder.encode(secret), signed), received) || matched;
  }
  if (!matched) throw new WebhookVerificationError('signature_mismatch', 'No secret produces this signature: wrong secret, or the body or timestamp was changed (verify the raw body).');

  // After the signature, so this error means "genuine but stale or early": a replay, or a wrong clock.
  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `The signed timestamp is ${nowSeconds - timestamp} s from now; at most ${toleranceSeconds} s are accepted.`);
  }
  let event: WebhookEvent;
  try {
    event = JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not JSON.');
  }
  return { event, deliveryId, timestamp, scheme: standard ? 'standard' : 'service', test: header(headers, 'x-service-test') === 'true' };
}

function rawBytes(payload: unknown): Uint8Array {
  if (typeof payload === 'string') return encoder.encode(payload);
  if (payload instanceof Uint8Array) return payload;
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  throw new TypeError(
    'payload: the raw request body (a string or bytes) exactly as received, not a parsed object: re-serialising JSON changes its bytes and the signature no longer matches',
  );
}

function header(headers: WebhookRequestHeaders, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(name: string): string | null }).get(name);
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    if (typeof value === 'string') values.push(value);
    else values.push(...value);
  }
  if (values.length > 1) throw new WebhookVerificationError('malformed_header', `${name}: the header appears more than once`);
  return values[0] ?? null;
}

function required(headers: WebhookRequestHeaders, name: string): string {
  const value = header(headers, name);
  if (value === null || value === '') throw new WebhookVerificationError('missing_header', `${name}: missing`);
  return value;
}

function checkTimestampFormat(value: string, name: string): void {
  if (!/^\d{1,15}$/.test(value)) throw new WebhookVerificationError('malformed_header', `${name}: expected Unix time in seconds`);
}

async function hmacSha256(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  // Copies typed as ArrayBuffer-backed, as Web Crypto's types ask.
  const cryptoKey = await globalThis.crypto.subtle.importKey('raw', new Uint8Array(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', cryptoKey, new Uint8Array(message)));
}

/** Equal lengths compared byte by byte with no early exit (the lengths are public: 32 bytes). */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Strict base64 (standard alphabet, optional padding) to bytes; null when it is not base64. */
function base64Bytes(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length === 0) return null;
  try {
    const binary = atob(text);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}
