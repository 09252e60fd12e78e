import { GenerationApiError } from './errors.js';

/** The longest the SDK waits before a retry, whatever Retry-After says. */
const MAX_RETRY_DELAY_MS = 60_000;

/** Retry-After as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Retry-After when the service said it (capped at a minute), else 0.5 s doubling per attempt with jitter, up to 8 s. */
export function retryDelayMs(attempt: number, retryAfterSeconds: number | null): number {
  if (retryAfterSeconds !== null) return Math.min(retryAfterSeconds * 1000, MAX_RETRY_DELAY_MS);
  const base = Math.min(500 * 2 ** attempt, 8_000);
  return base / 2 + Math.random() * (base / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.' }));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.' }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
