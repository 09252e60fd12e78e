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

/** setTimeout's longest wait (2^31 - 1 ms); a longer one would fire at once. */
const LONGEST_TIMER_MS = 2_147_483_647;

/** A signal bound to a parent and a time limit, and how to let go of both (DeadlineSignal). */
export interface Deadline {
  readonly signal: AbortSignal;
  /** True once the time limit (not the parent) aborted the signal. */
  readonly timedOut: boolean;
  /** Clears the timer and the listener on the parent; call it when the work the signal bounds is over. */
  dispose(): void;
}

/** When a signal made here aborts at the latest (its own limit, or its parent's if sooner), epoch ms. */
const EXPIRES_AT = Symbol('expiresAt');
type Expiring = AbortSignal & { [EXPIRES_AT]?: number };

/**
 * A signal that aborts when `parent` does (with its reason) or after `ms` (with a `TimeoutError`
 * DOMException), whichever comes first: what `AbortSignal.any([parent, AbortSignal.timeout(ms)])`
 * gives, without the weak references and finalizers Node creates for each of those two. A provider
 * job takes three of them (run, phase, request), and they were a fifth of its CPU with the garbage
 * collection they caused (bench/HISTORY.md, issue 34). The caller disposes of it when done.
 *
 * A limit that ends no sooner than a limit `parent` already has (one made here) could never fire
 * first: the parent itself is answered, with no timer and no listener (a status check's phase
 * deadline, inside the run's ENGINE_TIMEOUT_MS).
 */
export function deadlineSignal(parent: AbortSignal, ms: number): Deadline {
  const expiresAt = Date.now() + ms;
  const parentExpiresAt = (parent as Expiring)[EXPIRES_AT];
  if (parentExpiresAt !== undefined && parentExpiresAt <= expiresAt) return { signal: parent, timedOut: false, dispose: () => undefined };
  const controller = new AbortController();
  (controller.signal as Expiring)[EXPIRES_AT] = expiresAt;
  let timedOut = false;
  const onParentAbort = (): void => controller.abort(parent.reason);
  const timer = setTimeout(
    () => {
      timedOut = true;
      parent.removeEventListener('abort', onParentAbort);
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    },
    Math.min(LONGEST_TIMER_MS, Math.max(1, ms)),
  );
  // Like AbortSignal.timeout: the limit alone never keeps the process alive.
  timer.unref();
  if (parent.aborted) {
    clearTimeout(timer);
    controller.abort(parent.reason);
  } else {
    parent.addEventListener('abort', onParentAbort, { once: true });
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}
