import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EnvReader, HttpLimits, LogLevelName, readHttpLimits, readOpsConfig, readTrustProxy } from '@gen/config';
import { DashboardSettings, newWebhookSecretKey, readDashboardSettings, readWebhookSecretKeys, WebhookSecretKeyRing } from '@gen/gateway';
import { readCatalogueSettings } from '@gen/generation';

export interface StandaloneConfig {
  host: string;
  port: number;
  publicBaseUrl: string;
  cdnBaseUrl: string;
  dataDir: string;
  /** A PostgreSQL server to use instead of the embedded one. */
  databaseUrl: string | null;
  embeddedPgPort: number;
  syncWaitMs: number;
  /** Body size and the time headers and body may take (BODY_LIMIT_BYTES, HTTP_*_TIMEOUT_MS). */
  httpLimits: HttpLimits;
  /** Which proxies may set X-Forwarded-For (TRUST_PROXY; default none). */
  trustProxy: boolean | number | string;
  rpcTimeoutMs: number;
  workerConcurrency: number;
  latencyScale: number;
  pollIntervalMs: number;
  leaseMs: number;
  queueCapPerSlot: number;
  webhookAllowHttp: boolean;
  webhookAllowPrivateNetworks: boolean;
  webhookAllowList: string[];
  demoCredits: number;
  dashboard: DashboardSettings;
  webhookSecretKeys: WebhookSecretKeyRing;
  /** CATALOGUE_REFRESH_MS, UPSTREAM_ALLOW_PRIVATE_NETWORKS (standalone: allowed), ESPEAK_NG_PATH. */
  catalogueRefreshMs: number;
  /** Where provider credentials named by models (`tokenEnv`) are read: the environment the config came from. */
  credentialEnv: Readonly<Record<string, string | undefined>>;
  upstreamAllowPrivateNetworks: boolean;
  espeakPath: string;
  outputRetentionSeconds: number;
  /** SSE_STREAMS_PER_ACCOUNT: live status streams one account may hold open. */
  streamsPerAccount: number;
  streamHeartbeatMs: number;
  outputSweepIntervalMs: number;
  logLevel: LogLevelName;
  shutdown: { delayMs: number; timeoutMs: number };
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

/** Standalone mode's settings (README, "Configuration"), validated once; a bad value stops start-up. */
export function loadStandaloneConfig(source: Record<string, string | undefined> = process.env): StandaloneConfig {
  const env = new EnvReader(source);
  const ops = readOpsConfig(env, { portVariable: 'PORT', port: 3000, host: '127.0.0.1', shutdownDelayMs: 0 });
  const port = ops.http.port;
  const publicBaseUrl = env.url('PUBLIC_BASE_URL', `http://localhost:${port}`);
  const cdnBaseUrl = env.url('CDN_BASE_URL', `${publicBaseUrl}/cdn`);
  const dataDir = resolve(env.string('DATA_DIR', '.data'));
  const webhookAllowHttp = env.bool('WEBHOOK_ALLOW_HTTP', true);
  const webhookAllowPrivateNetworks = env.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', true);
  const webhookAllowList = env.list('WEBHOOK_ALLOW_LIST');
  const config: StandaloneConfig = {
    host: ops.http.host,
    port,
    publicBaseUrl,
    cdnBaseUrl,
    dataDir,
    databaseUrl: env.optionalString('DATABASE_URL') ?? null,
    embeddedPgPort: env.int('EMBEDDED_PG_PORT', 0, { min: 0, max: 65535 }),
    syncWaitMs: env.int('SYNC_WAIT_MS', 30_000, { min: 0, max: 300_000 }),
    httpLimits: readHttpLimits(env),
    trustProxy: readTrustProxy(env),
    rpcTimeoutMs: env.int('RPC_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
    workerConcurrency: env.int('WORKER_CONCURRENCY', 8, { min: 1, max: 1000 }),
    latencyScale: Number(env.string('ENGINE_LATENCY_SCALE', '1')),
    pollIntervalMs: env.int('JOB_POLL_INTERVAL_MS', 500, { min: 20, max: 60_000 }),
    leaseMs: env.int('JOB_LEASE_MS', 15_000, { min: 500, max: 600_000 }),
    queueCapPerSlot: env.int('QUEUE_CAP_PER_SLOT', 10, { min: 0, max: 10_000 }),
    webhookAllowHttp,
    webhookAllowPrivateNetworks,
    webhookAllowList,
    demoCredits: env.int('DEMO_CREDITS', 1000, { min: 0 }),
    dashboard: readDashboardSettings(env, { publicBaseUrl, cdnBaseUrl }),
    webhookSecretKeys: readWebhookSecretKeys(env, () => dataDirWebhookSecretKey(dataDir)),
    ...readCatalogueSettings(env, { allowPrivateUpstreams: true }),
    credentialEnv: source,
    streamsPerAccount: env.int('SSE_STREAMS_PER_ACCOUNT', 20, { min: 1, max: 10_000 }),
    streamHeartbeatMs: env.int('SSE_HEARTBEAT_MS', 15_000, { min: 100, max: 300_000 }),
    logLevel: ops.logLevel,
    shutdown: ops.shutdown,
  };
  if (!Number.isFinite(config.latencyScale) || config.latencyScale < 0) {
    env.problem(`ENGINE_LATENCY_SCALE must be a non-negative number (got "${source.ENGINE_LATENCY_SCALE}")`);
  }
  env.done();
  return config;
}
