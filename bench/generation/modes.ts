import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { dropDatabase, ensureDatabase, freePort } from '@gen/persistence';
import { AppProcess, bindModelToInstant, provisionEnterpriseAccounts } from './processes';

export interface BenchServers {
  /** Admin URL of the PostgreSQL server (databases are created and dropped on it). */
  pgAdminUrl: string;
  natsUrl: string;
}

export interface RunningMode {
  url: string;
  /** One API key per enterprise account; clients are spread over them. */
  keys: string[];
  /** What ran, for the table. */
  description: string;
  stop(): Promise<void>;
}

/** The one model the load uses, bound to the instant engine: what is measured is the service, not rendering. */
const INSTANT_IMAGE = 'pixel-flux-1';
const PARALLEL = 256;

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const baseEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', NODE_ENV: 'production' });

/** Cleans up what was made so far, whatever happened. */
async function cleanup(steps: Array<() => Promise<unknown>>): Promise<void> {
  for (const step of steps.reverse()) await step().catch((error: unknown) => process.stderr.write(`cleanup: ${String(error)}\n`));
}

/** Standalone mode (`npm start`): one process, in-process transport, on its own database of the server. */
export async function startStandaloneMode(servers: BenchServers, workers: number, accounts: number): Promise<RunningMode> {
  const token = randomBytes(4).toString('hex');
  const dbName = `gen_bench_sa_${token}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'gen-bench-sa-'));
  const undo: Array<() => Promise<unknown>> = [async () => rmSync(dataDir, { recursive: true, force: true })];
  try {
    await ensureDatabase(servers.pgAdminUrl, dbName);
    undo.push(() => dropDatabase(servers.pgAdminUrl, dbName));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const dbUrl = databaseUrl(servers.pgAdminUrl, dbName);
    const app = new AppProcess('standalone', join('apps', 'standalone', 'src', 'main.js'), {
      ...baseEnv(),
      PORT: String(port),
      PUBLIC_BASE_URL: url,
      DATA_DIR: dataDir,
      DATABASE_URL: dbUrl,
      DEMO_CREDITS: '0',
      WORKER_CONCURRENCY: String(workers),
    });
    app.start();
    undo.push(() => app.stop());
    await app.waitFor(/is running at/, 60_000);
    const keys = await provisionEnterpriseAccounts(dbUrl, accounts, PARALLEL);
    await bindModelToInstant(dbUrl, INSTANT_IMAGE);
    return { url, keys, description: 'standalone: 1 process, in-process bus', stop: () => cleanup(undo) };
  } catch (error) {
    await cleanup(undo);
    throw error;
  }
}

/**
 * Distributed mode: the four apps as separate processes (as the distributed harness starts them),
 * NATS with JetStream, on a database, subject prefix, stream and storage folder of their own.
 */
export async function startDistributedMode(servers: BenchServers, workers: number, accounts: number): Promise<RunningMode> {
  const token = randomBytes(4).toString('hex');
  const dbName = `gen_bench_dist_${token}`;
  const streamName = `GEN_BENCH_${token.toUpperCase()}`;
  const storageDir = mkdtempSync(join(tmpdir(), 'gen-bench-dist-'));
  const undo: Array<() => Promise<unknown>> = [async () => rmSync(storageDir, { recursive: true, force: true })];
  try {
    await ensureDatabase(servers.pgAdminUrl, dbName);
    undo.push(() => dropDatabase(servers.pgAdminUrl, dbName));
    undo.push(async () => {
      const nc = await connect({ servers: servers.natsUrl, timeout: 5_000 });
      try {
        await (await nc.jetstreamManager()).streams.delete(streamName).catch(() => false);
      } finally {
        await nc.close();
      }
    });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const dbUrl = databaseUrl(servers.pgAdminUrl, dbName);
    const common = {
      ...baseEnv(),
      DATABASE_URL: dbUrl,
      NATS_URL: servers.natsUrl,
      NATS_SUBJECT_PREFIX: `b${token}.`,
      NATS_STREAM: streamName,
      STORAGE_DIR: storageDir,
    };
    const apps = [
      new AppProcess('billing', join('apps', 'billing', 'src', 'main.js'), common),
      new AppProcess('generation', join('apps', 'generation', 'src', 'main.js'), {
        ...common,
        CDN_BASE_URL: `${url}/cdn`,
        WORKER_CONCURRENCY: String(workers),
      }),
      new AppProcess('webhooks', join('apps', 'webhooks', 'src', 'main.js'), common),
      new AppProcess('gateway', join('apps', 'gateway', 'src', 'main.js'), {
        ...common,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: url,
        WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      }),
    ];
    for (const app of apps) {
      app.start();
      undo.push(() => app.stop());
    }
    for (const app of apps) await app.waitFor(/successfully started/, 60_000);
    const keys = await provisionEnterpriseAccounts(dbUrl, accounts, PARALLEL);
    await bindModelToInstant(dbUrl, INSTANT_IMAGE);
    return { url, keys, description: 'distributed: 4 processes, NATS JetStream', stop: () => cleanup(undo) };
  } catch (error) {
    await cleanup(undo);
    throw error;
  }
}
