import type { ThrottlePolicy } from '../settings/dashboard.settings';

/**
 * Throttling of password guesses as pure functions over a counter row (the repository applies them
 * under a row lock, so concurrent guesses count exactly). The rules are ThrottlePolicy's, in
 * settings/dashboard.settings.ts.
 */
export type { ThrottlePolicy };

export interface ThrottleState {
  failures: number;
  lastAttemptAt: Date | null;
  lockedUntil: Date | null;
}

export type ThrottleDecision = { allowed: true; next: ThrottleState } | { allowed: false; retryAfterSeconds: number };

export const EMPTY_THROTTLE_STATE: ThrottleState = { failures: 0, lastAttemptAt: null, lockedUntil: null };

export function delaySeconds(failures: number, policy: ThrottlePolicy): number {
  if (failures < policy.freeFailures) return 0;
  return Math.min(policy.maxDelaySeconds, policy.baseDelaySeconds * 2 ** (failures - policy.freeFailures));
}

/** Whether an attempt may go ahead now; if so, the state with this attempt counted as a failure. */
export function decideAttempt(state: ThrottleState, now: Date, policy: ThrottlePolicy): ThrottleDecision {
  const nowMs = now.getTime();
  if (state.lockedUntil && state.lockedUntil.getTime() > nowMs) {
    return { allowed: false, retryAfterSeconds: Math.ceil((state.lockedUntil.getTime() - nowMs) / 1000) };
  }
  const stale = !state.lastAttemptAt || nowMs - state.lastAttemptAt.getTime() > policy.windowSeconds * 1000;
  const failures = stale ? 0 : state.failures;
  if (failures > 0 && state.lastAttemptAt) {
    const readyAt = state.lastAttemptAt.getTime() + delaySeconds(failures, policy) * 1000;
    if (readyAt > nowMs) return { allowed: false, retryAfterSeconds: Math.ceil((readyAt - nowMs) / 1000) };
  }
  return { allowed: true, next: { failures: failures + 1, lastAttemptAt: now, lockedUntil: null } };
}

/** After a wrong password: the attempt stays counted; enough of them lock. */
export function afterFailure(state: ThrottleState, now: Date, policy: ThrottlePolicy): ThrottleState {
  if (state.failures >= policy.lockAfterFailures) {
    return { failures: 0, lastAttemptAt: now, lockedUntil: new Date(now.getTime() + policy.lockSeconds * 1000) };
  }
  return state;
}

/**
 * After a right password: for the email, its slate is wiped; for an address, only this attempt is
 * taken back (one good account must not reset the count of guesses made against others).
 */
export function afterSuccess(state: ThrottleState, scope: 'email' | 'address'): ThrottleState {
  if (scope === 'email') return EMPTY_THROTTLE_STATE;
  return { ...state, failures: Math.max(0, state.failures - 1) };
}
