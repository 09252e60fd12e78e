import { UpstreamFailure } from './upstream-failure';

/** An upstream job id we accept: printable ASCII, no spaces, bounded. */
export const UPSTREAM_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * The reference stored on our job (`jobs.upstream_ref`): `<kind>:<payload>`, so an attempt that finds
 * a reference knows which protocol it belongs to. A job whose model was rebound to another provider
 * meanwhile is not submitted to the new one (that would pay a second provider for one job): it fails,
 * refunded, and the user can simply try again.
 */
export function encodeRef(kind: string, payload: string): string {
  return `${kind}:${payload}`;
}

export function decodeRef(kind: string, ref: string): string {
  const prefix = `${kind}:`;
  if (!ref.startsWith(prefix)) {
    throw new UpstreamFailure('unavailable', `the job was submitted through another engine binding (reference ${JSON.stringify(ref.slice(0, 60))}); not submitting it again`, {
      retryable: false,
    });
  }
  return ref.slice(prefix.length);
}

/** An id the upstream gave us: a non-empty printable string, or a safe integer. */
export function readUpstreamId(value: unknown, what: string): string {
  if (typeof value === 'string' && UPSTREAM_ID.test(value)) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  throw new UpstreamFailure('malformed', `${what} has no usable id`);
}
