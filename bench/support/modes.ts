import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'nats';
import { dropDatabase, ensureDatabase, freePort } from '@gen/persistence';
import { deferCleanup, undoAll } from './cleanup';
import { AppProcess, bindModelToInstant, provisionEnterpriseAccounts } from './processes';
import { scratchFolder } from './scratch';

export interface BenchServers {
  /** Admin URL of the PostgreSQL server (databases are created and dropped on it). */
  pgAdminUrl: string;
  natsUrl: string;
}

export interface RunningMode {
  url: string;
  /** The database the service runs on (its schemas), on the benchmark's PostgreSQL server. */
  databaseUrl: string;
  /** One API key per enterprise account; clients are spread over them. */
  keys: string[];
  /** What ran, for the table. */
  description: string;
  /** The process that runs the generation service (standalone's one process, or distributed's generation app). */
  generation: AppProcess;
  /** Every process of the service (standalone's one, or distributed's four), for their CPU time. */
  processes: AppProcess[];
  stop(): Promise<void>;
}

/** What a bench may change about a mode: extra variables of the generation process, the accounts' parallel slots. */
export interface ModeOptions {
  generationEnv?: Record<string, string>;
  parallel?: number;
}

/** The one model the load uses, bound to the instant engine: what is measured is the service, not rendering. */
export const INSTANT_IMAGE = 'pixel-flux-1';
const PARALLEL = 256;

/** A started service made ready for the load: its enterprise accounts (one key each) and the instant model. */
async function provisioned(mode: Omit<RunningMode, 'keys'>, accounts: number, parallel = PARALLEL): Promise<RunningMode> {
  const keys = await provisionEnterpriseAccounts(mode.databaseUrl, accounts, parallel);
  await bindModelToInstant(mode.databaseUrl, INSTANT_IMAGE);
  return { ...mode, keys };
}

/** `count` free ports, none of them in `taken`. */
async function distinctFreePorts(count: number, taken: number[]): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (!taken.includes(port) && !ports.includes(port)) ports.push(port);
  }
  return ports;
}

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * What every service process of a bench gets: a clean environment, plus BENCH_SERVICE_ENV
 * (`NAME=value` pairs separated by spaces) to try a setting, e.g. `RATE_LIMIT_SLICE_HORIZON_MS=1000`.
 */
const baseEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  TZ: 'UTC',
  NODE_ENV: 'production',
  ...Object.fromEntries(
    (process.env.BENCH_SERVICE_ENV ?? '')
      .split(/\s+/)
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  ),
});

/** Standalone mode (`npm start`): one process, in-process transport, on its own database of the server. */
export async function startStandaloneMode(servers: BenchServers, workers: number, accounts: number, options: ModeOptions = {}): Promise<RunningMode> {
  const token = randomBytes(4).toString('hex');
  const dbName = `gen_bench_sa_${token}`;
  const dataDir = scratchFolder('gen-bench-sa-');
  const undo = [deferCleanup(dataDir, async () => rmSync(dataDir, { recursive: true, force: true }))];
  try {
    await ensureDatabase(servers.pgAdminUrl, dbName);
    undo.push(deferCleanup(`database ${dbName}`, () => dropDatabase(servers.pgAdminUrl, dbName)));
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
      ...options.generationEnv,
    });
    app.start();
    undo.push(deferCleanup('standalone', () => app.stop()));
    await app.waitReady(`${url}/readyz`, 60_000);
    return await provisioned(
      { url, databaseUrl: dbUrl, description: 'standalone: 1 process, in-process bus', generation: app, processes: [app], stop: () => undoAll(undo) },
      accounts,
      options.parallel,
    );
  } catch (error) {
    await undoAll(undo);
    throw error;
  }
}

/**
 * Distributed mode: the four apps as separate processes (as the distributed harness starts them),
 * NATS with JetStream, on a database, subject prefix, stream and storage folder of their own.
 */
export async function startDistributedMode(servers: BenchServers, workers: number, accounts: number, options: ModeOptions = {}): Promise<RunningMode> {
  const token = randomBytes(4).toString('hex');
  const dbName = `gen_bench_dist_${token}`;
  const streamName = `GEN_BENCH_${token.toUpperCase()}`;
  const storageDir = scratchFolder('gen-bench-dist-');
  const undo = [deferCleanup(storageDir, async () => rmSync(storageDir, { recursive: true, force: true }))];
  try {
    await ensureDatabase(servers.pgAdminUrl, dbName);
    undo.push(deferCleanup(`database ${dbName}`, () => dropDatabase(servers.pgAdminUrl, dbName)));
    undo.push(deferCleanup(`stream ${streamName}`, async () => {
      const nc = await connect({ servers: servers.natsUrl, timeout: 5_000 });
      try {
        await (await nc.jetstreamManager()).streams.delete(streamName).catch(() => false);
      } finally {
        await nc.close();
      }
    }));
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
    // Each app's own listener (/readyz, /metrics) on a port of its own: several runs can share the machine.
    const httpPorts = await distinctFreePorts(3, [port]);
    const own = (index: number) => ({ HTTP_PORT: String(httpPorts[index]), HTTP_HOST: '127.0.0.1' });
    const apps = [
      new AppProcess('billing', join('apps', 'billing', 'src', 'main.js'), { ...common, ...own(0) }),
      new AppProcess('generation', join('apps', 'generation', 'src', 'main.js'), {
        ...common,
        ...own(1),
        CDN_BASE_URL: `${url}/cdn`,
        WORKER_CONCURRENCY: String(workers),
        // Provider callbacks reach the gateway (bindings with "callbacks": true; standalone makes its own key).
        PROVIDER_CALLBACK_BASE_URL: url,
        PROVIDER_CALLBACK_KEY: randomBytes(32).toString('base64'),
        ...options.generationEnv,
      }),
      new AppProcess('webhooks', join('apps', 'webhooks', 'src', 'main.js'), { ...common, ...own(2) }),
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
      undo.push(deferCleanup(app.label, () => app.stop()));
    }
    const readyUrls = [...httpPorts, port].map((p) => `http://127.0.0.1:${p}/readyz`);
    await Promise.all(apps.map((app, i) => app.waitReady(readyUrls[i], 60_000)));
    return await provisioned(
      { url, databaseUrl: dbUrl, description: 'distributed: 4 processes, NATS JetStream', generation: apps[1], processes: apps, stop: () => undoAll(undo) },
      accounts,
      options.parallel,
    );
  } catch (error) {
    await undoAll(undo);
    throw error;
  }
}
