import type { EnvReader } from './env';
import { custom, int } from './variables';

/** How much, and for how long, the public HTTP server reads from one client (README, "Configuration"). */
export interface HttpLimits {
  /** Largest request body in bytes (BODY_LIMIT_BYTES; `413 payload_too_large` above). */
  bodyLimitBytes: number;
  /** Longest time from a request's first byte to the end of its headers (HTTP_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** Longest time a request body may take to arrive once its headers are in (HTTP_BODY_TIMEOUT_MS). */
  bodyTimeoutMs: number;
  /**
   * Largest body of a provider callback (`POST /provider-callbacks/...`; PROVIDER_CALLBACK_BODY_LIMIT_BYTES):
   * a provider's whole job record, so larger than an API request; bounded so it fits one NATS message.
   */
  callbackBodyLimitBytes?: number;
}

export const HTTP_LIMIT_VARIABLES = {
  bodyLimitBytes: int('BODY_LIMIT_BYTES', 64 * 1024, 'largest request body (`413` above)', { min: 1024, max: 10 * 1024 * 1024 }),
  headersTimeoutMs: int('HTTP_HEADERS_TIMEOUT_MS', 20_000, 'longest a request line and headers may take to arrive (`408` after, connection closed)', { min: 1_000, max: 300_000 }),
  bodyTimeoutMs: int('HTTP_BODY_TIMEOUT_MS', 30_000, 'longest a request body may take to arrive after its headers (`408` after, connection closed); see `docs/operations/configure.md`, "HTTP limits"', { min: 1_000, max: 600_000 }),
  callbackBodyLimitBytes: int('PROVIDER_CALLBACK_BODY_LIMIT_BYTES', 512 * 1024, "largest body of a provider callback (`413` above; the provider's job record, so larger than `BODY_LIMIT_BYTES`; kept under NATS's 1 MiB message once encoded)", { min: 1024, max: 704 * 1024 }),
};

/**
 * Which proxies may set X-Forwarded-For: `false` (the client address is the peer's), a hop count
 * (`1` behind one ingress), or a comma-separated list of proxy IPs/CIDRs. Trusting every proxy
 * would let any client choose the address that sign-in throttling counts.
 */
export const TRUST_PROXY = custom<boolean | number | string>(
  'TRUST_PROXY',
  false,
  'proxies allowed to set `X-Forwarded-For`: `false`, a hop count (`1` behind one ingress) or proxy IPs/CIDRs; never "all", or clients could pick the address sign-in throttling counts',
  false,
  (value, problem) => {
    if (value === 'false') return false;
    if (/^\d{1,2}$/.test(value)) return Number(value);
    if (/^[0-9a-fA-F.:/, ]+$/.test(value)) return value;
    problem(`TRUST_PROXY must be false, a hop count, or a comma-separated list of proxy IPs/CIDRs (got "${value}")`);
    return undefined;
  },
);

/** The public HTTP server's limits and proxy trust, for the gateway and standalone alike. */
export function readPublicHttp(env: EnvReader): { limits: HttpLimits; trustProxy: boolean | number | string } {
  return { limits: env.readAll(HTTP_LIMIT_VARIABLES), trustProxy: env.read(TRUST_PROXY) };
}
