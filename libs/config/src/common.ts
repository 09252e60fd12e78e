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
