import type { AttemptResult } from '../deliveries/delivery-attempt';
import { nextAttemptAt } from '../deliveries/retry-schedule';
import type { AttemptOutcome } from './webhook-sender';

/**
 * One delivery's states, and the one place that decides where an attempt leads. The states are the
 * delivery's row in Postgres (`status`, `attempts_made`, `next_attempt_at`, the lease), so that any
 * replica, or the next process after a crash, continues where another left off:
 *
 * ```
 *   pending, due at T ──claim: attempt n counted, leased (insert or claim)──▶ in flight
 *   in flight ──2xx──────────────────────────────────────────────────────────▶ succeeded
 *   in flight ──failure, n < 3──▶ pending, due 2 s (n = 1) or 6 s (n = 2) after the failure was known
 *   in flight ──failure, n = 3──▶ failed
 *   in flight ──secret unreadable, nothing sent──▶ pending, due `notStartedRetryMs` later, n given back
 *   in flight ──lease expired (the process died)──▶ interrupted: the next claim records it and counts
 *                                                   it; after attempt 3, the poll fails the delivery
 * ```
 *
 * A failure is any non-2xx answer (3xx included), a timeout, a connection error, a refused
 * destination, or a key without a signing secret (`notSent`): all count.
 */
export type AttemptVerdict = { next: 'succeeded' } | { next: 'retry'; dueAt: number } | { next: 'failed' };

/** Where attempt `attemptNumber` (1 to 3) leads, given how it ended. */
export function verdictOf(attemptNumber: number, outcome: AttemptOutcome): AttemptVerdict {
  if (outcome.ok) return { next: 'succeeded' };
  const dueAt = nextAttemptAt(attemptNumber, outcome.startedAt + outcome.durationMs);
  return dueAt === null ? { next: 'failed' } : { next: 'retry', dueAt };
}

/** The attempt's outcome and the delivery's next state, as `recordAttempts` writes them. */
export function attemptResult(outcome: AttemptOutcome, verdict: AttemptVerdict): AttemptResult {
  return { ...outcome, succeeded: verdict.next === 'succeeded', nextAttemptAt: verdict.next === 'retry' ? verdict.dueAt : null };
}

/** The outcome of an attempt not sent because the key has no signing secret: every delivery is signed. */
export function notSent(now: number): AttemptOutcome {
  return {
    ok: false,
    startedAt: now,
    durationMs: 0,
    statusCode: null,
    errorClass: 'no_secret',
    error: 'Not sent: the API key has no webhook signing secret. Generate one in the dashboard (Settings, API Keys).',
  };
}
