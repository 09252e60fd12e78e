import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { CallbackDelivery, CallbackVerdict, CallbackVerifier, checkTimestamp, jsonBody, refuse } from '../../ports/callback-verifier';
import { MAX_JSON_BYTES } from '../common/upstream-client';
import type { UpstreamClient } from '../common/upstream-client';
import { UpstreamFailure } from '../common/upstream-failure';
import { jsonObject } from '../common/upstream-http';

/** The account's signing secret, as `GET /v1/webhooks/default/secret` answers it: `whsec_` and base64. */
const SECRET = /^whsec_([A-Za-z0-9+/]{16,}={0,2})$/;
/** A failed verification fetches the secret again at most this often per token (it may have been rotated). */
export const SECRET_REFETCH_INTERVAL_MS = 30_000;
/** Tokens whose secret is kept in memory at once. */
const MAX_CACHED_SECRETS = 100;

interface CachedSecret {
  key: Promise<Buffer>;
  fetchedAt: number;
}

/**
 * Replicate's signing secrets, per API token (one per account or organisation, for every webhook):
 * fetched from `GET /v1/webhooks/default/secret` with the binding's own token, kept in memory, and
 * fetched again when a signature does not verify with the kept one (at most every 30 s per token, so
 * forged callbacks cannot make us hammer the API). Shared by every binding with the same token.
 */
export class ReplicateSigningSecrets {
  private readonly byToken = new Map<string, CachedSecret>();

  /** The secret of the token `client` sends; `refresh` asks the API again unless it did very recently. */
  get(client: UpstreamClient, refresh: boolean, nowMs: number): { key: Promise<Buffer>; fresh: boolean } {
    const id = createHash('sha256').update(`${client.apiOrigin}\u0000${client.apiHeaders().authorization ?? ''}`).digest('hex');
    const cached = this.byToken.get(id);
    if (cached && !(refresh && nowMs - cached.fetchedAt >= SECRET_REFETCH_INTERVAL_MS)) return { key: cached.key, fresh: false };
    const entry: CachedSecret = { key: this.fetch(client), fetchedAt: nowMs };
    // A failed fetch is not kept: the next callback asks again.
    entry.key.catch(() => {
      if (this.byToken.get(id) === entry) this.byToken.delete(id);
    });
    this.byToken.delete(id);
    this.byToken.set(id, entry);
    if (this.byToken.size > MAX_CACHED_SECRETS) this.byToken.delete(this.byToken.keys().next().value as string);
    return { key: entry.key, fresh: true };
  }

  private async fetch(client: UpstreamClient): Promise<Buffer> {
    const answer = await client.http.send(
      {
        method: 'GET',
        url: client.apiUrl('/v1/webhooks/default/secret'),
        headers: client.apiHeaders(),
        maxBytes: MAX_JSON_BYTES,
        tooLarge: 'malformed',
      },
      AbortSignal.timeout(client.settings.requestTimeoutMs),
    );
    const match = SECRET.exec(String(jsonObject(answer, 'webhooks.default.secret').key ?? ''));
    if (!match) throw new UpstreamFailure('malformed', 'webhooks.default.secret: no whsec_ key in the answer');
    return Buffer.from(match[1], 'base64');
  }
}

/** Every process shares one cache (bindings come and go with the catalogue; the account's secret does not). */
export const REPLICATE_SIGNING_SECRETS = new ReplicateSigningSecrets();

/** True when one of the `v1,<base64>` signatures of the header is HMAC-SHA256(key, content). */
function signedWith(key: Buffer, content: Buffer, header: string): boolean {
  const expected = createHmac('sha256', key).update(content).digest();
  let matched = false;
  for (const part of header.split(' ')) {
    const [version, value] = part.split(',', 2);
    if (version !== 'v1' || value === undefined) continue;
    const given = Buffer.from(value, 'base64');
    // Every candidate is compared (no early exit), in constant time.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
}

/**
 * Replicate's webhooks (https://replicate.com/docs/topics/webhooks/verify-webhook), which follow
 * Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 * (space-separated `v1,<base64>`), the signature an HMAC-SHA256 of `<id>.<timestamp>.<raw body>` keyed
 * with the base64 part of the account's `whsec_` secret. The body is the prediction: its `id` must be
 * the prediction stored on our job (`replicate:<id>`).
 */
export class ReplicateCallbackVerifier implements CallbackVerifier {
  constructor(
    private readonly client: UpstreamClient,
    private readonly secrets: ReplicateSigningSecrets = REPLICATE_SIGNING_SECRETS,
  ) {}

  async verify(delivery: CallbackDelivery, upstreamRef: string | null, nowMs: number): Promise<CallbackVerdict> {
    const { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature } = delivery.headers;
    if (!id || !signature) return refuse('signature', 'no webhook-id or webhook-signature header');
    const stale = checkTimestamp(ts, nowMs);
    if (stale) return stale;
    const content = Buffer.concat([Buffer.from(`${id}.${ts}.`, 'utf8'), delivery.body]);
    let verified = false;
    try {
      let secret = this.secrets.get(this.client, false, nowMs);
      verified = signedWith(await secret.key, content, signature);
      if (!verified && !secret.fresh) {
        // The secret may have been rotated since we fetched it: ask once more.
        secret = this.secrets.get(this.client, true, nowMs);
        if (secret.fresh) verified = signedWith(await secret.key, content, signature);
      }
    } catch (error) {
      const detail = error instanceof UpstreamFailure ? this.client.redact(error.detail) : 'error';
      return refuse('unverifiable', `the signing secret could not be read: ${detail}`);
    }
    if (!verified) return refuse('signature', 'webhook-signature does not verify with the account signing secret');
    const prediction = jsonBody(delivery.body);
    if (!prediction || typeof prediction.id !== 'string') return refuse('malformed', 'the body is not a prediction with an id');
    const stored = upstreamRef?.startsWith('replicate:') ? upstreamRef.slice('replicate:'.length) : null;
    if (stored !== prediction.id) return refuse('mismatch', `prediction ${prediction.id.slice(0, 64)} is not the one this job waits on`);
    return { ok: true, deliveryId: `replicate:${id}` };
  }
}

