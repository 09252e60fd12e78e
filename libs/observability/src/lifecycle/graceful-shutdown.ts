import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import type { Server } from 'node:http';
import { DrainState } from './drain-state';

export interface ShutdownOptions extends ShutdownSettings {
  /** Stops taking new work right after readiness turns 503 (e.g. a message server's stopAccepting). */
  beforeClose?: () => Promise<void>;
}

export interface ShutdownSettings {
  /**
   * How long to keep serving after readiness turns 503, so load balancers and Kubernetes endpoints
   * stop sending new requests before the listener closes (SHUTDOWN_DELAY_MS).
   */
  delayMs: number;
  /** Upper bound of the whole drain: requests in flight, jobs and deliveries (SHUTDOWN_TIMEOUT_MS). */
  timeoutMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The shutdown sequence of every process:
 * 1. readiness turns 503 and responses say `Connection: close` (DrainState);
 * 2. after `delayMs`, `app.close()`: the HTTP listener stops accepting and finishes the requests
 *    it holds; message servers stop taking messages and finish those in flight; workers finish or
 *    hand back their jobs (each component bounds its own drain, see their hooks);
 * 3. connections still open `timeoutMs` after the start are cut, so the process always ends.
 */
export async function drainAndClose(app: INestApplication | INestApplicationContext, settings: ShutdownOptions): Promise<void> {
  const started = Date.now();
  app.get(DrainState, { strict: false }).begin();
  await settings.beforeClose?.();
  if (settings.delayMs > 0) await sleep(settings.delayMs);
  const server = 'getHttpServer' in app ? (app.getHttpServer() as Server | undefined) : undefined;
  const remaining = Math.max(0, settings.timeoutMs - (Date.now() - started));
  const force = setTimeout(() => server?.closeAllConnections?.(), remaining);
  force.unref();
  try {
    await app.close();
  } finally {
    clearTimeout(force);
  }
}
