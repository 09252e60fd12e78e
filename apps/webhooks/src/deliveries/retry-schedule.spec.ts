import { ATTEMPT_TIMEOUT_MS, MAX_ATTEMPTS, nextAttemptAt } from './retry-schedule';

describe('retry schedule', () => {
  const t0 = Date.UTC(2025, 0, 1, 12, 0, 0);

  it('has three attempts of 5 s each', () => {
    expect(MAX_ATTEMPTS).toBe(3);
    expect(ATTEMPT_TIMEOUT_MS).toBe(5_000);
  });

  it('attempt 2 is due 2 s after attempt 1 failed', () => {
    expect(nextAttemptAt(1, t0)).toBe(t0 + 2_000);
  });

  it('attempt 3 is due 6 s after attempt 2 failed', () => {
    expect(nextAttemptAt(2, t0)).toBe(t0 + 6_000);
  });

  it('there is nothing after attempt 3', () => {
    expect(nextAttemptAt(3, t0)).toBeNull();
    expect(nextAttemptAt(4, t0)).toBeNull();
  });

  it('fast failures: attempts start at about 0 s, 2 s and 8 s', () => {
    const start1 = t0;
    const start2 = nextAttemptAt(1, start1 + 10)!;
    const start3 = nextAttemptAt(2, start2 + 10)!;
    expect(start2 - start1).toBe(2_010);
    expect(start3 - start1).toBe(8_020);
  });

  it('timeouts: attempts start at 0 s, 7 s and 18 s (each waits 5 s, then the delay)', () => {
    const start2 = nextAttemptAt(1, t0 + ATTEMPT_TIMEOUT_MS)!;
    const start3 = nextAttemptAt(2, start2 + ATTEMPT_TIMEOUT_MS)!;
    expect([start2 - t0, start3 - t0]).toEqual([7_000, 18_000]);
  });

  it('refuses an attempt number below 1', () => {
    expect(() => nextAttemptAt(0, t0)).toThrow(RangeError);
    expect(() => nextAttemptAt(1.5, t0)).toThrow(RangeError);
  });
});
