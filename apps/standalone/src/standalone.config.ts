import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DATABASE_URL,
  EnvReader,
  Fallback,
  HttpLimits,
  int,
  OpsConfig,
  processIdentity,
  PUBLIC_URL_VARIABLES,
  readOpsConfig,
  readPublicHttp,
  text,
} from '@gen/config';
import { BillingSettings, readBillingSettings } from '@gen/billing';
import { GatewayParts, newWebhookSecretKey, readGatewayParts } from '@gen/gateway';
import { GenerationSettings, readGenerationSettings } from '@gen/generation';
import { readWebhooksSettings, WebhooksSettings } from '@gen/webhooks';

/** The variables only standalone reads (the CLI reads DATA_DIR too, to find standalone data). */
export const STANDALONE_VARIABLES = {
  dataDir: text('DATA_DIR', '.data', 'embedded PostgreSQL and outputs (the CLI refuses a missing one for a read)'),
  embeddedPgPort: int('EMBEDDED_PG_PORT', new Fallback('a free port', () => 0), 'port of the embedded PostgreSQL', { min: 0, max: 65535 }),
  demoCredits: int('DEMO_CREDITS', 1000, 'credits of the demo account made on first start', { min: 0 }),
};

/** Standalone mode's configuration: the four services' declarations, composed, and its own. */
export interface StandaloneConfig {
  ops: OpsConfig;
  /** Body size, the time headers and body may take, and which proxies may set X-Forwarded-For. */
  http: { limits: HttpLimits; trustProxy: boolean | number | string };
  publicBaseUrl: string;
  /** The data folder (absolute): embedded PostgreSQL in pg/, outputs in `outputsDir`. */
  dataDir: string;
  /** DATA_DIR/outputs: generation writes outputs there, the gateway serves them. */
  outputsDir: string;
  /** A PostgreSQL server to use instead of the embedded one. */
  databaseUrl: string | null;
  embeddedPgPort: number;
  demoCredits: number;
  gateway: GatewayParts;
  billing: BillingSettings;
  generation: GenerationSettings;
  webhooks: WebhooksSettings;
  /** Where provider credentials named by models (`tokenEnv`) are read: the environment the config came from. */
  credentialEnv: Readonly<Record<string, string | undefined>>;
}

/**
 * Standalone's webhook-secret encryption key when WEBHOOK_SECRET_ENCRYPTION_KEY is not set: made
 * once and kept in the data folder (readable by this user only), beside the database it protects.
 */
export function dataDirWebhookSecretKey(dataDir: string): string {
  const folder = join(dataDir, 'secrets');
  const file = join(folder, 'webhook-secret-encryption.key');
  // The data folder itself keeps default permissions: the embedded PostgreSQL's user must reach pg/.
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, newWebhookSecretKey() + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}

/** Everything standalone reads: each service's declaration (its standalone defaults) and its own variables. */
export function readStandaloneConfig(env: EnvReader, source: Readonly<Record<string, string | undefined>>): StandaloneConfig {
  const ops = readOpsConfig(env);
  const http = readPublicHttp(env);
  const urls = env.readAll(PUBLIC_URL_VARIABLES);
  const databaseUrl = env.read(DATABASE_URL);
  const own = env.readAll(STANDALONE_VARIABLES);
  const dataDir = resolve(own.dataDir);
  const outputsDir = join(dataDir, 'outputs');
  return {
    ops,
    http,
    publicBaseUrl: urls.publicBaseUrl,
    dataDir,
    outputsDir,
    databaseUrl,
    embeddedPgPort: own.embeddedPgPort,
    demoCredits: own.demoCredits,
    gateway: readGatewayParts(env, {
      urls,
      limits: http.limits,
      rpcTimeoutMs: ops.rpcTimeoutMs,
      outputsDir,
      secretKeyFallback: () => dataDirWebhookSecretKey(dataDir),
      mailDir: join(dataDir, 'mail'),
    }),
    billing: readBillingSettings(env),
    generation: readGenerationSettings(env, {
      ops,
      cdnBaseUrl: urls.cdnBaseUrl,
      workerId: processIdentity('standalone'),
      callbackKeyFile: join(dataDir, 'secrets', 'provider-callback.key'),
    }),
    webhooks: readWebhooksSettings(env),
    credentialEnv: source,
  };
}

/** Standalone mode's settings (README, "Configuration"), validated once; a bad value stops start-up. */
export function loadStandaloneConfig(source: Readonly<Record<string, string | undefined>> = process.env): StandaloneConfig {
  const env = new EnvReader(source, 'standalone');
  const config = readStandaloneConfig(env, source);
  env.done();
  return config;
}
