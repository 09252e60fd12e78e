import { EnvReader } from './env';

/** How much, and for how long, the public HTTP server reads from one client (README, "Configuration"). */
export interface HttpLimits {
  /** Largest request body in bytes (BODY_LIMIT_BYTES; `413 payload_too_large` above). */
  bodyLimitBytes: number;
  /** Longest time from a request's first byte to the end of its headers (HTTP_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** Longest time a request body may take to arrive once its headers are in (HTTP_BODY_TIMEOUT_MS). */
  bodyTimeoutMs: number;
}

/** One reading of the HTTP limits, for the gateway and standalone alike. */
export function readHttpLimits(env: EnvReader): HttpLimits {
  return {
    bodyLimitBytes: env.int('BODY_LIMIT_BYTES', 64 * 1024, { min: 1024, max: 10 * 1024 * 1024 }),
    headersTimeoutMs: env.int('HTTP_HEADERS_TIMEOUT_MS', 20_000, { min: 1_000, max: 300_000 }),
    bodyTimeoutMs: env.int('HTTP_BODY_TIMEOUT_MS', 30_000, { min: 1_000, max: 600_000 }),
  };
}
