import { isTransientDatabaseError } from '@gen/errors';
import { PG_DEADLOCK, PG_SERIALIZATION_FAILURE, pgErrorCode } from './pg-errors';

export const DEFAULT_CONFLICT_ATTEMPTS = 3;

/** PostgreSQL aborted the transaction so that another could proceed: running it again is safe and usually succeeds. */
export function isRetryableConflict(error: unknown): boolean {
  const code = pgErrorCode(error);
  return code === PG_DEADLOCK || code === PG_SERIALIZATION_FAILURE;
}

/**
 * The statement was refused for a value it carried (SQLSTATE class 22, data exception: a malformed
 * uuid, an integer out of range; class 23, integrity constraint violation): another statement
 * without that value would have gone through. A BatchQueue's `isolate` predicate for SQL batches.
 */
export function isRefusedValue(error: unknown): boolean {
  const code = pgErrorCode(error);
  return code !== undefined && (code.startsWith('22') || code.startsWith('23'));
}

/**
 * Runs `work` (one whole transaction or single statement) and runs it again when PostgreSQL chose it
 * as a deadlock victim (40P01) or failed it for serialization (40001), up to `attempts` runs in all,
 * with a short random pause between runs so that the two sides do not meet again at once. Any other
 * error, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = DEFAULT_CONFLICT_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}

/** How long `retryTransient` keeps trying, all runs and pauses together, unless told otherwise. */
export const DEFAULT_TRANSIENT_BUDGET_MS = 1_000;

/**
 * Runs `work` and runs it again, up to `attempts` runs within about `budgetMs`, when it failed for a
 * reason that is not its own (isTransientDatabaseError: the connection was lost or refused, the
 * server is restarting or shutting down, a deadlock or serialization victim). Only for work that is
 * safe to run twice: a read, or a write whose ids make a second run change nothing (the group-committed
 * admissions, reserves and settles, keyed by job id). Pauses grow (a few ms after a conflict, 100 ms
 * then 400 ms after a lost connection) so that a restarting server has a moment; what still fails is
 * thrown, and the transports answer it `503` with `Retry-After`.
 */
export async function retryTransient<T>(
  work: () => Promise<T>,
  options: { attempts?: number; budgetMs?: number } = {},
): Promise<T> {
  const attempts = options.attempts ?? DEFAULT_CONFLICT_ATTEMPTS;
  const deadline = Date.now() + (options.budgetMs ?? DEFAULT_TRANSIENT_BUDGET_MS);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isTransientDatabaseError(error)) throw error;
      const pause = isRetryableConflict(error) ? Math.random() * 5 * attempt : 100 * 4 ** (attempt - 1) * (0.5 + Math.random() / 2);
      if (Date.now() + pause >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
