import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { NatsTransportConfig } from '@gen/transport';
import { EnvReader } from './env';

/** NATS settings shared by every distributed service (NATS_URL, NATS_SUBJECT_PREFIX, NATS_STREAM). */
export function readNatsConfig(env: EnvReader, service: string): NatsTransportConfig {
  const prefix = env.string('NATS_SUBJECT_PREFIX', '');
  if (prefix && !/^[A-Za-z0-9_-]+\.$/.test(prefix)) {
    env.problem(`NATS_SUBJECT_PREFIX must be a subject token followed by a dot, e.g. "t1a2b3." (got "${prefix}")`);
  }
  return {
    url: env.url('NATS_URL', 'nats://127.0.0.1:4222', ['nats:', 'tls:']),
    service,
    subjectPrefix: prefix,
    streamName: env.string('NATS_STREAM', 'GEN_EVENTS'),
    requestTimeoutMs: env.int('RPC_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
  };
}

/** A name unique to this process, for lease ownership and logs. */
export function processIdentity(service: string): string {
  return `${service}-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * Which proxies may set X-Forwarded-For (TRUST_PROXY): `false` (default: the client address is the
 * peer's), a hop count (`1` behind one ingress), or a comma-separated list of proxy IPs/CIDRs.
 * Trusting every proxy would let any client choose the address that sign-in throttling counts.
 */
export function readTrustProxy(env: EnvReader): boolean | number | string {
  const value = env.string('TRUST_PROXY', 'false');
  if (value === 'false') return false;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  if (/^[0-9a-fA-F.:/, ]+$/.test(value)) return value;
  env.problem(`TRUST_PROXY must be false, a hop count, or a comma-separated list of proxy IPs/CIDRs (got "${value}")`);
  return false;
}
