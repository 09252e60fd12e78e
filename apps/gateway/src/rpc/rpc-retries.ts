import { DomainError } from '@gen/errors';

/** Runs of one call at most when its service is unavailable (a replica draining or dead, a database blip). */
export const RPC_ATTEMPTS = 4;
/** Pause before the second run; doubled before each next one (100, 200, 400 ms). */
const RPC_RETRY_FIRST_PAUSE_MS = 100;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The pause after the `attempt`-th run of a call that found its service unavailable. */
export const rpcRetryPause = (attempt: number): Promise<void> => sleep(RPC_RETRY_FIRST_PAUSE_MS * 2 ** (attempt - 1));

/** `503 service_unavailable`: nothing answered, or the answer was "retry shortly". */
export function isUnavailable(error: unknown): boolean {
  return error instanceof DomainError && error.code === 'service_unavailable';
}

/**
 * Runs `call` again when its service was unavailable (RPC_ATTEMPTS runs in all, short growing pauses):
 * NATS hands the next run to another replica of a queue group. Only for calls that a second run
 * cannot double: reads, and writes keyed by the caller's ids (a hold and a job by their job id).
 */
export async function withRpcRetries<T>(call: () => Promise<T>, attempts = RPC_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= attempts || !isUnavailable(error)) throw error;
      await rpcRetryPause(attempt);
    }
  }
}
