import { createHmac } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from './ids';
import { dateToUnixSeconds, WebhookBody } from './sign';

/**
 * Standard Webhooks (https://www.standardwebhooks.com), the scheme a key may choose instead of the
 * spec's X-Service-* headers: `webhook-id`, `webhook-timestamp` and `webhook-signature`, the last one
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, several space-separated during a rotation.
 */
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';
export const STANDARD_SIGNATURE_VERSION = 'v1';

/**
 * The HMAC key of a `whsec_...` secret under Standard Webhooks: the base64 text after the prefix,
 * decoded (a key's secret is `whsec_` and 32 base62 characters, valid base64: 24 bytes). The spec's
 * scheme, by contrast, keys the HMAC with the whole string as it is.
 */
export function standardSecretKey(secret: string): Buffer {
  const text = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  if (text.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw new TypeError('A Standard Webhooks secret is whsec_ followed by base64');
  return Buffer.from(text, 'base64');
}

/** `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed with the decoded secret. */
export function signStandard(input: { secret: string; id: string; timestamp: number; body: WebhookBody }): string {
  const mac = createHmac('sha256', standardSecretKey(input.secret)).update(`${input.id}.${input.timestamp}.`, 'utf8').update(input.body).digest('base64');
  return `${STANDARD_SIGNATURE_VERSION},${mac}`;
}

export type StandardSignatureHeaders = {
  [STANDARD_ID_HEADER]: string;
  [STANDARD_TIMESTAMP_HEADER]: string;
  [STANDARD_SIGNATURE_HEADER]: string;
};

/**
 * The three Standard Webhooks headers of one attempt: one signature per secret, space-separated (the
 * current secret first; a previous one during a rotation's overlap).
 */
export function standardSignatureHeaders(input: { id: string; secrets: readonly string[]; body: WebhookBody; now?: Date }): StandardSignatureHeaders {
  if (input.secrets.length === 0) throw new TypeError('At least one webhook secret is required');
  const timestamp = dateToUnixSeconds(input.now ?? new Date());
  return {
    [STANDARD_ID_HEADER]: input.id,
    [STANDARD_TIMESTAMP_HEADER]: String(timestamp),
    [STANDARD_SIGNATURE_HEADER]: input.secrets.map((secret) => signStandard({ secret, id: input.id, timestamp, body: input.body })).join(' '),
  };
}
