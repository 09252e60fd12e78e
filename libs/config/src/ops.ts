import type { EnvReader } from './env';
import { byProcess, choice, int, text, unset } from './variables';

export const LOG_LEVEL_NAMES = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];

/** What every process reads: logs, the graceful drain, and the timeout of calls between services. */
export const OPS_VARIABLES = {
  logLevel: choice('LOG_LEVEL', LOG_LEVEL_NAMES, 'info', '`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`'),
  logFormat: choice('LOG_FORMAT', ['json', 'pretty'] as const, unset('readable lines on a terminal, JSON otherwise'), "`json` or `pretty` to choose; Nest's start-up lines (one per module and route) appear only at `debug`"),
  shutdownDelayMs: int('SHUTDOWN_DELAY_MS', byProcess({ gateway: 2_000 }, 0), 'after SIGTERM, keep serving this long with readiness at 503 before closing the listener', { min: 0, max: 120_000 }),
  shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 25_000, 'bound of the graceful drain (requests, jobs, messages in flight)', { min: 1_000, max: 600_000 }),
  rpcTimeoutMs: int('RPC_TIMEOUT_MS', 10_000, 'timeout of service-to-service requests', { min: 100, max: 120_000 }),
};

/** The listener of the processes that serve the public API (standalone and the gateway). */
export const PUBLIC_LISTENER_VARIABLES = {
  port: int('PORT', 3000, 'HTTP port of the API (and of `/healthz`, `/readyz`, `/metrics`)', { min: 0, max: 65535 }),
  host: text('HOST', byProcess({ standalone: '127.0.0.1', gateway: '0.0.0.0' }), 'listen address'),
};

/** The listener of the other services: health, readiness and metrics only. */
export const SERVICE_LISTENER_VARIABLES = {
  port: int('HTTP_PORT', byProcess({ billing: 8081, generation: 8082, webhooks: 8083 }), 'port of `/healthz`, `/readyz` and `/metrics`', { min: 0, max: 65535 }),
  host: text('HTTP_HOST', '0.0.0.0', 'listen address of that port'),
};

export interface OpsConfig {
  logLevel: LogLevelName;
  /** LOG_FORMAT; null: guessed from whether stdout is a terminal. */
  logFormat: 'json' | 'pretty' | null;
  /** The process's own HTTP listener (/healthz, /readyz, /metrics; the API too for the gateway and standalone). */
  http: { port: number; host: string };
  shutdown: { delayMs: number; timeoutMs: number };
  rpcTimeoutMs: number;
}

/** The operational settings of the reading process (its listener: PORT/HOST or HTTP_PORT/HTTP_HOST). */
export function readOpsConfig(env: EnvReader): OpsConfig {
  const ops = env.readAll(OPS_VARIABLES);
  const publicApi = env.context.process === 'standalone' || env.context.process === 'gateway';
  const http = env.readAll(publicApi ? PUBLIC_LISTENER_VARIABLES : SERVICE_LISTENER_VARIABLES);
  if (ops.shutdownDelayMs >= ops.shutdownTimeoutMs) {
    env.problem(`SHUTDOWN_DELAY_MS (${ops.shutdownDelayMs}) must be less than SHUTDOWN_TIMEOUT_MS (${ops.shutdownTimeoutMs})`);
  }
  return {
    logLevel: ops.logLevel,
    logFormat: ops.logFormat,
    http,
    shutdown: { delayMs: ops.shutdownDelayMs, timeoutMs: ops.shutdownTimeoutMs },
    rpcTimeoutMs: ops.rpcTimeoutMs,
  };
}
