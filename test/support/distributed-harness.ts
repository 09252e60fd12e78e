import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import type { NatsConnection } from 'nats';
import { BalanceReply, Events, OpenBillingAccountRequest, PlanName, Subjects } from '@gen/contracts';
import { freePort } from '@gen/persistence';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { NatsRpcClient, NatsTransportConfig } from '@gen/transport';
import { generateApiKey } from '../../apps/gateway/src/auth/api-key-format';

export type AppName = 'gateway' | 'billing' | 'generation' | 'webhooks';
export const APP_NAMES: readonly AppName[] = ['gateway', 'billing', 'generation', 'webhooks'];

export interface DistributedOptions {
  /** Extra environment for every app (e.g. ENGINE_LATENCY_SCALE). */
  env?: Record<string, string>;
  /** Extra environment for one app. */
  appEnv?: Partial<Record<AppName, Record<string, string>>>;
  /** How long start-up (and restart) may take before it fails with the apps' output. */
  startTimeoutMs?: number;
  /**
   * Processes per app (default 1): replicas share the database, NATS subjects and storage, as a
   * scaled deployment does. Each gateway replica listens on its own port (see `urls`).
   */
  replicas?: Partial<Record<AppName, number>>;
  /** The NATS server for the apps and the harness (default DIST_NATS_URL, else nats://127.0.0.1:4222). */
  natsUrl?: string;
  /**
   * The checkout whose dist/ runs an app (default this one): the compatibility suite runs one service,
   * or all but one, from the previous release's build (tools/compat/previous-release.mjs).
   */
  roots?: Partial<Record<AppName, string>>;
  /** Runs on the new database before any app starts (e.g. the newer release's migrations first). */
  beforeStart?: (databaseUrl: string) => Promise<void> | void;
}

export interface DistributedHarness {
  /** The (first) gateway's base URL (http://127.0.0.1:<port>). */
  url: string;
  /** Every gateway replica's base URL, `url` first. */
  urls: string[];
  database: TestDatabase;
  subjectPrefix: string;
  streamName: string;
  /** The gateways' WEBHOOK_SECRET_ENCRYPTION_KEY (for the operator CLI, which must read and write the same secrets). */
  secretEncryptionKey: string;
  storageDir: string;
  /** Creates an account (auth rows + billing account over NATS) and returns a live key for it. */
  account(plan?: PlanName, credits?: number): Promise<{ accountId: string; key: string; keyId: string }>;
  /** SQL on the run's database (tables are schema-qualified: auth., billing., generation., webhooks.). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The run's NATS connection (JetStream inspection). */
  nats(): Promise<NatsConnection>;
  /**
   * Sends a signal to one app (its replica `index`, default the first) and waits until its process
   * has exited (SIGKILL after 15 s); resolves with how it exited (`code 0`, `signal SIGKILL`).
   */
  kill(app: AppName, signal?: NodeJS.Signals, index?: number): Promise<string>;
  /** An app replica's own HTTP base URL (/healthz, /readyz, /metrics); a gateway's is also its API URL. */
  httpUrl(app: AppName, index?: number): string;
  /** Starts a stopped app (replica `index`) again with the same environment and waits until it answers. */
  restart(app: AppName, index?: number): Promise<void>;
  /** The process id of each replica of an app (undefined while it is not running). */
  pids(app: AppName): Array<number | undefined>;
  /** Everything the apps wrote to stdout/stderr so far (tail of each). */
  logs(): string;
  /** Stops the apps and removes the stream, the database and the folders. Safe to call twice. */
  close(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');
const MAX_LOG_CHARS = 1_000_000;

/** One app's child process and its captured output. */
class AppProcess {
  private chunks: string[] = [];
  private size = 0;
  child?: ChildProcess;
  exited: Promise<void> = Promise.resolve();
  exitInfo: string | null = null;
  starts = 0;

  constructor(
    readonly name: AppName,
    private readonly env: NodeJS.ProcessEnv,
    /** `gateway`, or `gateway#2` for a second replica. */
    readonly label: string,
    /** Its own HTTP listener (PORT for a gateway, HTTP_PORT for the others): health, readiness, metrics. */
    readonly httpUrl: string,
    /** The checkout whose dist/ this process runs. */
    readonly root: string = ROOT,
  ) {}

  start(): void {
    this.starts++;
    this.exitInfo = null;
    this.record(`----- ${this.label}: start #${this.starts} -----\n`);
    const child = spawn(process.execPath, [join(this.root, 'dist', 'apps', this.name, 'src', 'main.js')], {
      cwd: this.root,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.record(chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => this.record(chunk));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = signal ? `signal ${signal}` : `code ${code}`;
        this.record(`----- ${this.label}: exited (${this.exitInfo}) -----\n`);
        resolve();
      });
      child.once('error', (error) => {
        this.exitInfo = `spawn error ${error.message}`;
        resolve();
      });
    });
  }

  get running(): boolean {
    return this.child !== undefined && this.exitInfo === null;
  }

  /** Output of the current start only (readiness looks for Nest's start-up line in it). */
  outputSinceStart(): string {
    const all = this.chunks.join('');
    const marker = `----- ${this.label}: start #${this.starts} -----`;
    return all.slice(all.lastIndexOf(marker));
  }

  output(): string {
    return this.chunks.join('');
  }

  async stop(signal: NodeJS.Signals, graceMs: number): Promise<string> {
    if (!this.running || !this.child) return this.exitInfo ?? 'not running';
    this.child.kill(signal);
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    if ((await Promise.race([this.exited.then(() => 'exited' as const), timer])) === 'timeout') {
      this.record(`----- ${this.label}: no exit ${graceMs} ms after ${signal}; SIGKILL -----\n`);
      this.child.kill('SIGKILL');
      await this.exited;
    }
    return this.exitInfo ?? 'unknown';
  }

  private record(chunk: string): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > MAX_LOG_CHARS && this.chunks.length > 1) this.size -= (this.chunks.shift() as string).length;
  }
}

/** Children still running when the test process exits (a crash, a timeout) are killed with it. */
const liveApps = new Set<AppProcess>();
process.once('exit', () => {
  for (const app of liveApps) if (app.running) app.child?.kill('SIGKILL');
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, deadline: number, probe: () => Promise<T | undefined>, apps: AppProcess[]): Promise<T> {
  let lastError: unknown;
  for (;;) {
    const dead = apps.find((a) => !a.running);
    if (dead) throw new Error(`${dead.label} exited (${dead.exitInfo}) while waiting for ${what}`);
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message ?? String(lastError)}` : ''}`);
    }
    await sleep(100);
  }
}

/**
 * The four apps as separate processes from dist/, on a database, subject prefix, JetStream stream
 * and storage folder of their own, so runs never see each other on the shared servers.
 */
export async function startDistributed(options: DistributedOptions = {}): Promise<DistributedHarness> {
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const token = randomBytes(5).toString('hex');
  const subjectPrefix = `t${token}.`;
  const streamName = `GEN_T${token.toUpperCase()}`;
  const natsUrl = options.natsUrl ?? process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222';

  const database = await createTestDatabase('dist');
  const storageDir = mkdtempSync(join(tmpdir(), 'gen-dist-'));
  const pool = new Pool({ connectionString: database.url, max: 4 });
  // An idle connection the server ends (57P01: a restart, a terminated session) is dropped by the
  // pool and the next query opens another; unheard, its 'error' would fail the whole test file.
  pool.on('error', () => undefined);
  const rpc = new NatsRpcClient({
    url: natsUrl,
    service: 'dist-harness',
    subjectPrefix,
    streamName,
    requestTimeoutMs: 10_000,
  } satisfies NatsTransportConfig);
  const replicas = (name: AppName) => Math.max(1, options.replicas?.[name] ?? 1);
  const ports: number[] = [];
  while (ports.length < replicas('gateway')) {
    const candidate = await freePort();
    if (!ports.includes(candidate)) ports.push(candidate);
  }
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);
  const url = urls[0];
  // Every other process has its own HTTP port too (HTTP_PORT: health, readiness, metrics).
  const httpPorts = new Map<string, number>();
  for (const name of APP_NAMES) {
    for (let index = 0; index < replicas(name); index++) {
      let port = name === 'gateway' ? ports[index] : await freePort();
      while (name !== 'gateway' && (ports.includes(port) || [...httpPorts.values()].includes(port))) port = await freePort();
      httpPorts.set(`${name}#${index}`, port);
    }
  }
  const httpUrlOf = (name: AppName, index: number) => `http://127.0.0.1:${httpPorts.get(`${name}#${index}`)}`;

  const common: Record<string, string> = {
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '5',
    NATS_URL: natsUrl,
    NATS_SUBJECT_PREFIX: subjectPrefix,
    NATS_STREAM: streamName,
    STORAGE_DIR: storageDir,
    ENGINE_LATENCY_SCALE: '0',
    JOB_POLL_INTERVAL_MS: '100',
    LOG_LEVEL: 'info',
    SHUTDOWN_DELAY_MS: '300',
    SHUTDOWN_TIMEOUT_MS: '8000',
    ...options.env,
  };
  const secretEncryptionKey = randomBytes(32).toString('base64');
  // One provider callback key for every generation replica: a callback may reach any of them.
  const providerCallbackKey = randomBytes(32).toString('base64');
  const own = (name: AppName, index: number) => ({ HTTP_PORT: String(httpPorts.get(`${name}#${index}`)), HTTP_HOST: '127.0.0.1' });
  const perApp = (name: AppName, index: number): Record<string, string> => {
    switch (name) {
      case 'gateway':
        return {
          PORT: String(ports[index]),
          HOST: '127.0.0.1',
          PUBLIC_BASE_URL: urls[index],
          // One key for every gateway replica: each must read the secrets the others encrypted.
          WEBHOOK_SECRET_ENCRYPTION_KEY: secretEncryptionKey,
          WEBHOOK_ALLOW_HTTP: 'true',
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          // Specs sign up and use keys at once, as the local try-out does (distributed defaults to
          // `verified` with no grant: gateway.settings.spec.ts; the mail flows: test/e2e/sign-up-verification).
          SIGNUP_MODE: 'open',
          SIGNUP_CREDITS: '100',
        };
      case 'billing':
        return { ...own(name, index) };
      case 'generation':
        // Providers call back through the last gateway (with one gateway, the only one).
        return { ...own(name, index), CDN_BASE_URL: `${url}/cdn`, PROVIDER_CALLBACK_KEY: providerCallbackKey, PROVIDER_CALLBACK_BASE_URL: urls[urls.length - 1] };
      case 'webhooks':
        return { ...own(name, index), WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    }
  };
  // Only what a deployment would set: nothing of the test runner's own environment leaks in.
  const baseEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', NODE_ENV: 'test' };
  const apps = new Map<AppName, AppProcess[]>(
    APP_NAMES.map((name) => [
      name,
      Array.from(
        { length: replicas(name) },
        (_, index) =>
          new AppProcess(
            name,
            { ...baseEnv, ...common, ...perApp(name, index), ...options.appEnv?.[name] },
            index === 0 ? name : `${name}#${index + 1}`,
            httpUrlOf(name, index),
            options.roots?.[name] ?? ROOT,
          ),
      ),
    ]),
  );
  const allApps = () => [...apps.values()].flat();
  const instances = (name: AppName) => apps.get(name) as AppProcess[];
  const app = (name: AppName, index = 0) => {
    const found = instances(name)[index];
    if (!found) throw new Error(`${name} has no replica ${index}`);
    return found;
  };

  let closed = false;
  const logs = () =>
    allApps()
      .map((a) => `===== ${a.label} (${a.running ? 'running' : a.exitInfo ?? 'not started'}) =====\n${a.output()}`)
      .join('\n');

  const provision = async (plan: PlanName, credits: number, rpcTimeoutMs?: number) => {
    const accountId = randomUUID();
    const keyId = randomUUID();
    const generated = generateApiKey();
    await pool.query('INSERT INTO auth.accounts (id, name) VALUES ($1, $2)', [accountId, `dist-${accountId.slice(0, 8)}`]);
    await pool.query(
      `INSERT INTO auth.api_keys (id, account_id, name, lookup_id, key_hash, last4, scopes)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [keyId, accountId, 'test key', generated.lookupId, generated.hash, generated.last4, ['generate', 'read']],
    );
    // Opening is idempotent in billing (ON CONFLICT DO NOTHING), so a retried request is harmless.
    const open = () =>
      rpc.request<BalanceReply, OpenBillingAccountRequest>(Subjects.billingAccountOpen, { accountId, plan, initialCredits: credits }, rpcTimeoutMs);
    if (rpcTimeoutMs === undefined) await open();
    else await until('billing to open an account', Date.now() + startTimeoutMs, open, allApps());
    return { accountId, key: generated.key, keyId };
  };

  const status = async (path: string, key?: string, base = url) => {
    const res = await fetch(`${base}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    await res.arrayBuffer();
    return res.status;
  };

  /**
   * Waits until each process answers /healthz on its own HTTP port (and none of them exits
   * meanwhile), then until each is ready (/readyz: its database, NATS, and for a gateway the
   * services behind it).
   */
  const started = async (watched: AppProcess[], deadline: number) => {
    for (const a of watched) {
      await until(`${a.label} to answer /healthz`, deadline, async () => ((await status('/healthz', undefined, a.httpUrl)) === 200 ? true : undefined), watched);
    }
    for (const a of watched) {
      await until(`${a.label} to be ready`, deadline, async () => ((await status('/readyz', undefined, a.httpUrl)) === 200 ? true : undefined), watched);
    }
  };

  /** Waits until billing's durable consumers exist (they are created just after it starts). */
  const billingConsuming = async (deadline: number) => {
    const jsm = await (await rpc.connection()).jetstreamManager();
    // The events billing consumes (a job's end settles its hold); billing publishes others
    // (account.low_balance) that only the gateway and webhooks consume.
    for (const event of [Events.generationCompleted, Events.generationFailed]) {
      const durable = `billing-${event.replace(/[^A-Za-z0-9_-]/g, '_')}`;
      await until(`billing's consumer ${durable}`, deadline, async () => ((await jsm.consumers.info(streamName, durable)) ? true : undefined), [app('billing')]);
    }
  };

  const close = async () => {
    if (closed) return;
    closed = true;
    const failures = (globalThis as { __GEN_DIST_FAILURES__?: number }).__GEN_DIST_FAILURES__ ?? 0;
    await Promise.all(allApps().map((a) => a.stop('SIGTERM', 10_000)));
    for (const a of allApps()) liveApps.delete(a);
    if (failures > 0) process.stdout.write(`\nA test failed; output of the distributed apps:\n${logs()}\n`);
    const problems: unknown[] = [];
    const attempt = async (step: () => Promise<unknown>) => {
      try {
        await step();
      } catch (error) {
        problems.push(error);
      }
    };
    await attempt(async () => {
      const jsm = await (await rpc.connection()).jetstreamManager();
      await jsm.streams.delete(streamName).catch((error: { code?: string; message?: string }) => {
        // Never created (nothing started far enough): nothing to remove.
        if (!/not found/i.test(error.message ?? '')) throw error;
      });
    });
    await attempt(() => rpc.onApplicationShutdown());
    await attempt(() => pool.end());
    await attempt(() => database.drop());
    await attempt(async () => rmSync(storageDir, { recursive: true, force: true }));
    if (problems.length > 0) throw new AggregateError(problems, 'Distributed harness cleanup failed');
  };

  const harness: DistributedHarness = {
    url,
    urls,
    database,
    subjectPrefix,
    streamName,
    secretEncryptionKey,
    storageDir,
    account: (plan = 'pro', credits = 1000) => provision(plan, credits),
    async query<T>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as T[];
    },
    nats: () => rpc.connection(),
    kill(name, signal = 'SIGKILL', index = 0) {
      return app(name, index).stop(signal, 15_000);
    },
    httpUrl: (name, index = 0) => app(name, index).httpUrl,
    async restart(name, index = 0) {
      const target = app(name, index);
      if (target.running) throw new Error(`${target.label} is still running`);
      target.start();
      const deadline = Date.now() + startTimeoutMs;
      try {
        await started([target], deadline);
        if (name === 'billing') await billingConsuming(deadline);
        if (name === 'gateway') {
          await until('the gateway to answer', deadline, async () => ((await status('/api/v1/models', undefined, urls[index])) === 401 ? true : undefined), [target]);
        }
      } catch (error) {
        process.stdout.write(`\n${target.label} did not restart; output of the distributed apps:\n${logs()}\n`);
        throw error;
      }
    },
    pids: (name) => (apps.get(name) ?? []).map((a) => (a.running ? a.child?.pid : undefined)),
    logs,
    close,
  };

  try {
    await options.beforeStart?.(database.url);
    const all = allApps();
    for (const a of all) {
      liveApps.add(a);
      a.start();
    }
    const deadline = Date.now() + startTimeoutMs;
    await started(all, deadline);
    for (const base of urls) {
      await until(`the gateway at ${base} to answer HTTP`, deadline, async () => ((await status('/api/v1/models', undefined, base)) === 401 ? true : undefined), all);
    }
    // A probe account proves the whole request path: auth rows, billing over NATS (open, balance),
    // generation over NATS (the catalogue), through every gateway.
    const probe = await provision('pro', 0, 2_000);
    for (const base of urls) {
      await until('the catalogue through the gateway', deadline, async () => ((await status('/api/v1/models', probe.key, base)) === 200 ? true : undefined), all);
      await until('the balance through the gateway', deadline, async () => ((await status('/api/v1/credits', probe.key, base)) === 200 ? true : undefined), all);
    }
    await billingConsuming(deadline);
  } catch (error) {
    process.stdout.write(`\nThe distributed apps did not start: ${(error as Error).message}\n${logs()}\n`);
    await close().catch((cleanupError: unknown) => process.stdout.write(`cleanup after failed start: ${String(cleanupError)}\n`));
    throw error;
  }
  return harness;
}
