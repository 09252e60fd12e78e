import { attemptResult, notSent, verdictOf } from './attempt-state';
import type { AttemptOutcome } from './webhook-sender';

describe('attempt state machine', () => {
  const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
  const ended = (fields: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
    ok: false,
    startedAt: t0,
    durationMs: 40,
    statusCode: 500,
    errorClass: 'http_status',
    error: 'HTTP 500',
    ...fields,
  });

  it('a 2xx ends the delivery, whatever the attempt', () => {
    for (const n of [1, 2, 3]) {
      expect(verdictOf(n, ended({ ok: true, statusCode: 204, errorClass: null, error: null }))).toEqual({ next: 'succeeded' });
    }
  });

  it('a failure with attempts left is due again 2 s, then 6 s, after the failure was known (start + duration)', () => {
    expect(verdictOf(1, ended())).toEqual({ next: 'retry', dueAt: t0 + 40 + 2_000 });
    expect(verdictOf(2, ended({ durationMs: 5_000, statusCode: null, errorClass: 'timeout' }))).toEqual({
      next: 'retry',
      dueAt: t0 + 5_000 + 6_000,
    });
  });

  it('a failure of attempt 3 fails the delivery', () => {
    expect(verdictOf(3, ended())).toEqual({ next: 'failed' });
  });

  it('a key without a secret is a failure that counts, with nothing sent', () => {
    const outcome = notSent(t0);
    expect(outcome).toMatchObject({ ok: false, errorClass: 'no_secret', statusCode: null, durationMs: 0 });
    expect(outcome.error).toMatch(/no webhook signing secret/);
    expect(verdictOf(1, outcome)).toEqual({ next: 'retry', dueAt: t0 + 2_000 });
    expect(verdictOf(3, outcome)).toEqual({ next: 'failed' });
  });

  it('writes the verdict as the repository records it', () => {
    const failure = ended();
    expect(attemptResult(failure, { next: 'retry', dueAt: t0 + 2_040 })).toEqual({ ...failure, succeeded: false, nextAttemptAt: t0 + 2_040 });
    expect(attemptResult(failure, { next: 'failed' })).toEqual({ ...failure, succeeded: false, nextAttemptAt: null });
    const success = ended({ ok: true, statusCode: 200, errorClass: null, error: null });
    expect(attemptResult(success, { next: 'succeeded' })).toEqual({ ...success, succeeded: true, nextAttemptAt: null });
  });
});
