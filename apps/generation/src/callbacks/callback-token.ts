import { createHmac, timingSafeEqual } from 'node:crypto';
import { CALLBACK_TOKEN_SHAPE, CallbackProvider } from '@gen/contracts';

/** Our job ids are UUIDs; a token carries one as 32 hex digits. */
const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOKEN = /^([0-9a-f]{32})([A-Za-z0-9_-]{32})$/;
/** 24 bytes of the MAC (192 bits), base64url: 32 characters. */
const MAC_BYTES = 24;

function mac(key: Buffer, provider: CallbackProvider, jobId: string): Buffer {
  return createHmac('sha256', key).update(`provider-callback:v1:${provider}:${jobId}`).digest().subarray(0, MAC_BYTES);
}

/**
 * The token of a callback URL (`/provider-callbacks/{provider}/{token}`): the job id (32 hex digits)
 * and an HMAC-SHA256 of the provider and the job id under PROVIDER_CALLBACK_KEY (192 bits, base64url).
 * Unguessable without the key, bound to one job and one provider, and checked without reading the
 * database, so a forged URL costs one HMAC. Nothing is stored: the key makes it again.
 */
export function callbackToken(key: Buffer, provider: CallbackProvider, jobId: string): string {
  if (!JOB_ID.test(jobId)) throw new RangeError(`a callback token is made for a job id (a UUID), not ${JSON.stringify(jobId.slice(0, 40))}`);
  return jobId.replace(/-/g, '') + mac(key, provider, jobId).toString('base64url');
}

/** The job a token names when `key` made it for `provider`; null for any other text (compared in constant time). */
export function readCallbackToken(key: Buffer, provider: CallbackProvider, token: string): string | null {
  const match = CALLBACK_TOKEN_SHAPE.test(token) ? TOKEN.exec(token) : null;
  if (!match) return null;
  const hex = match[1];
  const jobId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  const given = Buffer.from(match[2], 'base64url');
  const expected = mac(key, provider, jobId);
  return given.length === expected.length && timingSafeEqual(given, expected) ? jobId : null;
}
