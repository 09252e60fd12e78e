import { EnvReader } from './env';

export const LOG_LEVEL_NAMES = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];

export interface OpsConfig {
  logLevel: LogLevelName;
  /** The service's own HTTP listener (/healthz, /readyz, /metrics; the API too for the gateway). */
  http: { port: number; host: string };
  shutdown: { delayMs: number; timeoutMs: number };
}

/**
 * Operational settings every process reads: LOG_LEVEL, its HTTP port (PORT for the gateway and
 * standalone, HTTP_PORT for the other services), SHUTDOWN_DELAY_MS and SHUTDOWN_TIMEOUT_MS.
 */
export function readOpsConfig(
  env: EnvReader,
  defaults: { portVariable: 'PORT' | 'HTTP_PORT'; port: number; host: string; shutdownDelayMs: number },
): OpsConfig {
  const timeoutMs = env.int('SHUTDOWN_TIMEOUT_MS', 25_000, { min: 1_000, max: 600_000 });
  const delayMs = env.int('SHUTDOWN_DELAY_MS', defaults.shutdownDelayMs, { min: 0, max: 120_000 });
  if (delayMs >= timeoutMs) env.problem(`SHUTDOWN_DELAY_MS (${delayMs}) must be less than SHUTDOWN_TIMEOUT_MS (${timeoutMs})`);
  return {
    logLevel: env.oneOf('LOG_LEVEL', LOG_LEVEL_NAMES, 'info'),
    http: {
      port: env.int(defaults.portVariable, defaults.port, { min: 0, max: 65535 }),
      host: env.string(defaults.portVariable === 'PORT' ? 'HOST' : 'HTTP_HOST', defaults.host),
    },
    shutdown: { delayMs, timeoutMs },
  };
}
