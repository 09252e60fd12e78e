import { readLatencyMs } from './engine-params';
import type { EngineRequest } from '../ports/engine';

/**
 * Cancellation and simulated latency for the built-in engines. Aborts surface as the signal's own
 * reason (an `AbortError` DOMException by default), the same thing `fetch` and timers/promises
 * throw, so callers can treat every engine's cancellation the same way.
 */

export function throwIfAborted(signal: AbortSignal): void {
  signal.throwIfAborted();
}

/** Resolves after `ms`, or rejects with the abort reason as soon as `signal` aborts (timer cleared). */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Lets pending I/O (and abort events) run during long synchronous work, then re-checks the signal.
 * Engines call this between frames/phases so a cancelled job stops promptly.
 */
export function checkpoint(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) =>
    setImmediate(() => (signal.aborted ? reject(signal.reason) : resolve())),
  );
}

/** Progress steps reported while the simulated latency passes. */
const LATENCY_STEPS = 10;

/**
 * Common preamble: fail fast when already aborted, then wait out `params.latencyMs`, reporting
 * progress (0 to 0.9) as it passes; rendering is the rest.
 */
export async function beginGeneration(request: EngineRequest): Promise<void> {
  throwIfAborted(request.signal);
  const latencyMs = readLatencyMs(request.params);
  if (latencyMs > 0) {
    for (let step = 0; step < LATENCY_STEPS; step++) {
      request.reportProgress?.((0.9 * step) / LATENCY_STEPS);
      await delay(latencyMs / LATENCY_STEPS, request.signal);
    }
    request.reportProgress?.(0.9);
  }
  throwIfAborted(request.signal);
}
