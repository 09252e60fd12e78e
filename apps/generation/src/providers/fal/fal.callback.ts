import { createHash, createPublicKey, KeyObject, verify } from 'node:crypto';
import { CallbackDelivery, CallbackVerdict, CallbackVerifier, checkTimestamp, refuse } from '../../ports/callback-verifier';
import { isRecord } from '../../ports/engine-kind';
import type { UpstreamHttp } from '../common/upstream-http';
import { statusFailure, parseJsonObject } from '../common/upstream-http';
import { UpstreamFailure } from '../common/upstream-failure';

/** Where fal publishes the public keys of its webhook signatures (a JSON Web Key Set). */
export const FAL_JWKS_URL = 'https://rest.fal.ai/.well-known/jwks.json';
/** fal's documentation: cache the key set for at most 24 hours. */
export const JWKS_MAX_AGE_MS = 24 * 3600_000;
/** A signature no cached key verifies reads the key set again, at most this often per URL. */
export const JWKS_REFRESH_INTERVAL_MS = 60_000;
/** Bounds of what we accept as a key set. */
const MAX_JWKS_BYTES = 64 * 1024;
const MAX_KEYS = 20;
const JWKS_TIMEOUT_MS = 10_000;

interface KeySet {
  keys: Promise<KeyObject[]>;
  fetchedAt: number;
}

/**
 * fal's key sets, per URL: read on first use, again after 24 hours, and again (at most once a minute)
 * when a signature verifies with none of the kept keys, which is how a new key (a rotation) is found:
 * fal's headers name no key id. Only Ed25519 keys (`kty: OKP`, `crv: Ed25519`) are kept, 20 at most.
 */
export class FalKeySets {
  private readonly byUrl = new Map<string, KeySet>();

  get(http: UpstreamHttp, url: string, refresh: boolean, nowMs: number): { keys: Promise<KeyObject[]>; fresh: boolean } {
    const cached = this.byUrl.get(url);
    const expired = cached && nowMs - cached.fetchedAt >= JWKS_MAX_AGE_MS;
    if (cached && !expired && !(refresh && nowMs - cached.fetchedAt >= JWKS_REFRESH_INTERVAL_MS)) return { keys: cached.keys, fresh: false };
    const entry: KeySet = { keys: this.fetch(http, url), fetchedAt: nowMs };
    entry.keys.catch(() => {
      if (this.byUrl.get(url) === entry) this.byUrl.delete(url);
    });
    this.byUrl.set(url, entry);
    return { keys: entry.keys, fresh: true };
  }

  private async fetch(http: UpstreamHttp, url: string): Promise<KeyObject[]> {
    const answer = await http.send(
      { method: 'GET', url: new URL(url), headers: { accept: 'application/json' }, maxBytes: MAX_JWKS_BYTES, tooLarge: 'malformed' },
      AbortSignal.timeout(JWKS_TIMEOUT_MS),
    );
    const failure = statusFailure(answer, 'fal JWKS');
    if (failure) throw failure;
    const set = parseJsonObject(answer.body, 'fal JWKS');
    const keys: KeyObject[] = [];
    for (const jwk of Array.isArray(set.keys) ? set.keys.slice(0, MAX_KEYS) : []) {
      if (!isRecord(jwk) || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') continue;
      try {
        keys.push(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }));
      } catch {
        // Not a key: skipped.
      }
    }
    if (keys.length === 0) throw new UpstreamFailure('malformed', 'fal JWKS holds no Ed25519 key');
    return keys;
  }
}

export const FAL_KEY_SETS = new FalKeySets();

/**
 * fal's webhooks (https://docs.fal.ai/model-endpoints/webhooks, "Verifying your webhook"): headers
 * `X-Fal-Webhook-Request-Id`, `-User-Id`, `-Timestamp` (Unix seconds) and `-Signature` (hex), the
 * signature ED25519 over `<request id>\n<user id>\n<timestamp>\n<hex SHA-256 of the raw body>` with one
 * of the keys of fal's JWKS. The request id must be the one stored on our job.
 */
export class FalCallbackVerifier implements CallbackVerifier {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly jwksUrl: string,
    private readonly keySets: FalKeySets = FAL_KEY_SETS,
  ) {}

  async verify(delivery: CallbackDelivery, upstreamRef: string | null, nowMs: number): Promise<CallbackVerdict> {
    const h = delivery.headers;
    const requestId = h['x-fal-webhook-request-id'];
    const userId = h['x-fal-webhook-user-id'];
    const ts = h['x-fal-webhook-timestamp'];
    const signatureHex = h['x-fal-webhook-signature'];
    if (!requestId || !userId || !signatureHex) return refuse('signature', 'no X-Fal-Webhook-Request-Id, -User-Id or -Signature header');
    if (!/^[0-9a-fA-F]{128}$/.test(signatureHex)) return refuse('signature', 'X-Fal-Webhook-Signature is not 64 bytes of hex');
    const stale = checkTimestamp(ts, nowMs);
    if (stale) return stale;
    const digest = createHash('sha256').update(delivery.body).digest('hex');
    const message = Buffer.from(`${requestId}\n${userId}\n${ts}\n${digest}`, 'utf8');
    const signature = Buffer.from(signatureHex, 'hex');
    let verified = false;
    try {
      let set = this.keySets.get(this.http, this.jwksUrl, false, nowMs);
      verified = (await set.keys).some((key) => verify(null, message, key, signature));
      if (!verified && !set.fresh) {
        // Perhaps signed with a key published since we read the set: read it again (bounded).
        set = this.keySets.get(this.http, this.jwksUrl, true, nowMs);
        if (set.fresh) verified = (await set.keys).some((key) => verify(null, message, key, signature));
      }
    } catch (error) {
      return refuse('unverifiable', `fal's key set could not be read: ${error instanceof UpstreamFailure ? error.detail : 'error'}`);
    }
    if (!verified) return refuse('signature', "X-Fal-Webhook-Signature verifies with none of fal's published keys");
    if (storedRequestId(upstreamRef) !== requestId) return refuse('mismatch', `request ${requestId.slice(0, 64)} is not the one this job waits on`);
    return { ok: true, deliveryId: `fal:${requestId}:${ts}` };
  }
}

/** The request id of a stored `fal:{"id", ...}` reference; null when there is none. */
function storedRequestId(upstreamRef: string | null): string | null {
  if (!upstreamRef?.startsWith('fal:')) return null;
  try {
    const ref: unknown = JSON.parse(upstreamRef.slice('fal:'.length));
    return isRecord(ref) && typeof ref.id === 'string' ? ref.id : null;
  } catch {
    return null;
  }
}
