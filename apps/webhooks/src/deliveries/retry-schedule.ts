/**
 * The retry schedule (docs/guide/webhooks.md, "Delivery, retries and duplicates"): attempt 1 immediately, attempt 2
 * 2 s after attempt 1 failed, attempt 3 6 s after attempt 2 failed, then stop. Each attempt has 5 s
 * for the whole exchange.
 */
export const RETRY_DELAYS_MS: readonly number[] = [2_000, 6_000];
export const ATTEMPT_TIMEOUT_MS = 5_000;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * When the next attempt is due after attempt `failedAttempt` (1-based) failed at `failedAt`
 * (epoch ms), or null when it was the last one.
 */
export function nextAttemptAt(failedAttempt: number, failedAt: number): number | null {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) throw new RangeError('failedAttempt must be 1 or more');
  const delay = RETRY_DELAYS_MS[failedAttempt - 1];
  return delay === undefined ? null : failedAt + delay;
}

