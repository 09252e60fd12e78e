import { afterFailure, afterSuccess, decideAttempt, EMPTY_THROTTLE_STATE, ThrottlePolicy, ThrottleState } from './sign-in-throttle';

const policy: ThrottlePolicy = {
  freeFailures: 3,
  baseDelaySeconds: 1,
  maxDelaySeconds: 8,
  lockAfterFailures: 6,
  lockSeconds: 900,
  windowSeconds: 900,
};

/** Runs a failed attempt at `at` (ms since start); returns the new state or the refusal. */
function fail(state: ThrottleState, at: number): ThrottleState | number {
  const now = new Date(at);
  const decision = decideAttempt(state, now, policy);
  if (!decision.allowed) return decision.retryAfterSeconds;
  return afterFailure(decision.next, now, policy);
}

describe('sign-in throttle', () => {
  it('lets the first failures through at once, then asks for growing delays', () => {
    let state = EMPTY_THROTTLE_STATE;
    for (let i = 0; i < 3; i++) state = fail(state, 0) as ThrottleState;
    expect(state.failures).toBe(3);
    expect(fail(state, 0)).toBe(1); // 4th attempt: wait 1 s
    state = fail(state, 1000) as ThrottleState;
    expect(fail(state, 1000)).toBe(2); // 5th: wait 2 s
    expect(fail(state, 2999)).toBe(1);
    state = fail(state, 3000) as ThrottleState;
    expect(state.failures).toBe(5);
  });

  it('locks after enough failures, for the lock period, then starts over', () => {
    let state = EMPTY_THROTTLE_STATE;
    let t = 0;
    for (let i = 0; i < 6; i++) {
      const result = fail(state, t);
      expect(typeof result).toBe('object');
      state = result as ThrottleState;
      t += 10_000;
    }
    expect(state.lockedUntil?.getTime()).toBe(t - 10_000 + 900_000);
    expect(fail(state, t)).toBeGreaterThan(800);
    const afterLock = fail(state, t - 10_000 + 900_000);
    expect(afterLock).toMatchObject({ failures: 1, lockedUntil: null });
  });

  it('forgets failures older than the window', () => {
    let state = EMPTY_THROTTLE_STATE;
    for (let i = 0; i < 5; i++) state = fail(state, i * 20_000) as ThrottleState;
    expect(fail(state, 80_000 + 900_001)).toMatchObject({ failures: 1 });
  });

  it('counts an attempt before the password is checked, so parallel guesses cannot exceed the limit', () => {
    const decision = decideAttempt({ failures: 2, lastAttemptAt: new Date(0), lockedUntil: null }, new Date(0), policy);
    expect(decision).toMatchObject({ allowed: true, next: { failures: 3 } });
    // The next parallel guess sees 3 and must wait.
    if (decision.allowed) expect(decideAttempt(decision.next, new Date(0), policy)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('a success wipes the email\'s count but takes back only its own attempt for the address', () => {
    const state = { failures: 4, lastAttemptAt: new Date(0), lockedUntil: null };
    expect(afterSuccess(state, 'email')).toEqual(EMPTY_THROTTLE_STATE);
    expect(afterSuccess(state, 'address').failures).toBe(3);
  });
});
