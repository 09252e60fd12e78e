import type { NatsTransportConfig } from '@gen/transport';
import type { EnvReader } from './env';
import { OpsConfig, readOpsConfig } from './ops';
import { choice, Fallback, int, matching, REQUIRED, text, url } from './variables';

/** The PostgreSQL server: required by a distributed service; standalone and the CLI use the embedded one when unset. */
export const DATABASE_URL = url(
  'DATABASE_URL',
  new Fallback<string | null>('embedded (standalone); **required** (distributed)', (context) =>
    context.mode === 'distributed' && context.process !== 'cli' ? REQUIRED : null,
  ),
  'PostgreSQL; each service uses its own schema (unset, the CLI works on the standalone data in `DATA_DIR`)',
  { protocols: ['postgres:', 'postgresql:'] },
);

/** What each distributed service reads besides its own settings: its database and NATS. */
export const DISTRIBUTED_VARIABLES = {
  poolSize: int('DATABASE_POOL_SIZE', 20, 'connections per service', { min: 1, max: 500 }),
  migrations: choice('MIGRATIONS', ['run', 'verify'] as const, 'run', '`run`: migrate at start; `verify`: refuse to start while a migration is pending (the `migrate` job runs them)'),
  natsUrl: url('NATS_URL', 'nats://127.0.0.1:4222', 'NATS with JetStream', { protocols: ['nats:', 'tls:'] }),
  subjectPrefix: matching(
    'NATS_SUBJECT_PREFIX',
    '',
    '`token.` prepended to every subject (several deployments on one NATS)',
    /^[A-Za-z0-9_-]+\.$/,
    'must be a subject token followed by a dot, e.g. "t1a2b3."',
  ),
  streamName: text('NATS_STREAM', 'GEN_EVENTS', 'JetStream stream of domain events'),
};

export interface ServiceConfig {
  ops: OpsConfig;
  database: { url: string; poolSize: number; migrations: 'run' | 'verify' };
  nats: NatsTransportConfig;
}

/** The shared part of a distributed service's configuration (the process named by the reader). */
export function readServiceConfig(env: EnvReader): ServiceConfig {
  const ops = readOpsConfig(env);
  // Required here: when it is missing the problem is recorded and start-up stops at env.done().
  const databaseUrl = env.read(DATABASE_URL) ?? '';
  const shared = env.readAll(DISTRIBUTED_VARIABLES);
  return {
    ops,
    database: { url: databaseUrl, poolSize: shared.poolSize, migrations: shared.migrations },
    nats: {
      url: shared.natsUrl,
      service: env.context.process,
      subjectPrefix: shared.subjectPrefix,
      streamName: shared.streamName,
      requestTimeoutMs: ops.rpcTimeoutMs,
    },
  };
}
