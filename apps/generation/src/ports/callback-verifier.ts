import type { CallbackHeader, CallbackRefusal } from '@gen/contracts';

/** A provider's callback as it reached us: the headers a verifier reads, and the raw body. */
export interface CallbackDelivery {
  headers: Partial<Record<CallbackHeader, string>>;
  /** The body's bytes exactly as received (signatures are over them). */
  body: Buffer;
}

export type CallbackVerdict =
  /**
   * The provider sent it, about the upstream job this job waits on. `deliveryId` names this delivery
   * (the same for a resend of it), for the replay check; null when the provider gives none.
   */
  | { ok: true; deliveryId: string | null }
  /** `detail` is for the operator's log only (no secret in it). */
  | { ok: false; reason: CallbackRefusal; detail: string };

/**
 * Checks that a callback comes from the provider (its signature over the raw body, a fresh timestamp)
 * and is about the upstream job stored on our job (`upstreamRef`, as the adapter stored it; null when
 * none is stored yet). Never throws: a provider's key that cannot be read is `unverifiable`.
 */
export interface CallbackVerifier {
  verify(delivery: CallbackDelivery, upstreamRef: string | null, nowMs: number): Promise<CallbackVerdict>;
  /** Releases connection pools (the signing keys' endpoint). */
  dispose?(): Promise<void>;
}

/** How far a signed timestamp may be from our clock, either way: both providers' documented tolerance. */
export const CALLBACK_TOLERANCE_SECONDS = 300;

export function refuse(reason: CallbackRefusal, detail: string): CallbackVerdict {
  return { ok: false, reason, detail };
}

/** `ts` (Unix seconds, as the header carries it) within the tolerance of `nowMs`; otherwise the refusal. */
export function checkTimestamp(ts: string | undefined, nowMs: number): CallbackVerdict | null {
  if (ts === undefined || !/^\d{1,12}$/.test(ts)) return refuse('signature', 'no usable timestamp header');
  const skew = Math.abs(nowMs / 1000 - Number(ts));
  if (skew > CALLBACK_TOLERANCE_SECONDS) return refuse('timestamp', `signed ${Math.round(skew)} s away from our clock (tolerance ${CALLBACK_TOLERANCE_SECONDS} s)`);
  return null;
}

/** The body as a JSON object, or null (the gateway already refused bodies that are not JSON, or too deep). */
export function jsonBody(body: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
