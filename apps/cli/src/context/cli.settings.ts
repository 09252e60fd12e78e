import { resolve } from 'node:path';
import { DATABASE_URL, DISTRIBUTED_VARIABLES, EnvReader, OPS_VARIABLES, PUBLIC_URL_VARIABLES } from '@gen/config';
import type { NatsTransportConfig } from '@gen/transport';
import { readWebhookSecretKeys, WebhookSecretKeyRing } from '@gen/gateway';
import { STANDALONE_VARIABLES } from '@gen/standalone';
import { readWebhookDestinationPolicy, WebhookDestinationPolicy } from '@gen/webhook-policy';

/**
 * What the operator CLI reads of the environment: the declarations of the processes whose data it
 * works on, never a variable of its own. On a PostgreSQL server (DATABASE_URL) it reads as a
 * distributed service does; on standalone data, as standalone does (loadStandaloneConfig).
 */
export function cliEnv(source: Readonly<Record<string, string | undefined>> = process.env): EnvReader {
  return new EnvReader(source, { process: 'cli', mode: 'distributed' });
}

export interface CliDatabaseSettings {
  /** DATABASE_URL: a distributed deployment's server; null: standalone data. */
  databaseUrl: string | null;
  /** DATA_DIR, absolute (standalone data). */
  dataDir: string;
  /** How DATA_DIR was chosen, for the operator's messages. */
  dataDirSource: string;
}

/** Which data the CLI works on: DATABASE_URL when set, else the standalone data folder (DATA_DIR). */
export function readCliDatabaseSettings(env: EnvReader): CliDatabaseSettings {
  const databaseUrl = env.read(DATABASE_URL);
  const dataDir = env.read(STANDALONE_VARIABLES.dataDir);
  const set = env.text(STANDALONE_VARIABLES.dataDir.name) !== undefined;
  return { databaseUrl, dataDir: resolve(dataDir), dataDirSource: set ? `DATA_DIR=${dataDir}` : `DATA_DIR is not set: the default ${dataDir}` };
}

/** The base of output URLs in the events of jobs an operator fails, as the generation service has it. */
export function readCliOutputBaseUrl(env: EnvReader): string {
  return env.readAll(PUBLIC_URL_VARIABLES).cdnBaseUrl;
}

/** A key's webhook URL rules and secret keys, as a distributed gateway reads them. */
export function readCliKeyWebhookSettings(env: EnvReader): { webhookPolicy: WebhookDestinationPolicy; secretKeys: WebhookSecretKeyRing } {
  return { webhookPolicy: readWebhookDestinationPolicy(env), secretKeys: readWebhookSecretKeys(env) };
}

/**
 * NATS as the distributed services have it (NATS_URL, NATS_SUBJECT_PREFIX, NATS_STREAM): where the
 * CLI forwards its key and plan changes so every gateway hears of them at once (cli-broadcast.ts).
 */
export function readCliNatsSettings(env: EnvReader): NatsTransportConfig {
  return {
    url: env.read(DISTRIBUTED_VARIABLES.natsUrl),
    service: 'cli',
    subjectPrefix: env.read(DISTRIBUTED_VARIABLES.subjectPrefix),
    streamName: env.read(DISTRIBUTED_VARIABLES.streamName),
    requestTimeoutMs: env.read(OPS_VARIABLES.rpcTimeoutMs),
  };
}

/** Reads settings from the environment with one of the readers above; a bad value is a ConfigError (exit 2). */
export function readSettings<T>(reader: (env: EnvReader) => T): T {
  const env = cliEnv();
  const settings = reader(env);
  env.done();
  return settings;
}
