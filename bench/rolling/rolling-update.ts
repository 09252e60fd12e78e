import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'nats';
import { Pool } from 'pg';
import { request } from 'undici';
import { dropDatabase, ensureDatabase, freePort } from '@gen/persistence';
import { deferCleanup, undoAll } from '../support/cleanup';
import { databaseUrl, BenchServers, INSTANT_IMAGE } from '../support/modes';
import { AppProcess, bindModelToInstant, cli, ROOT, sleep } from '../support/processes';
import { scratchFolder } from '../support/scratch';
import { startWebhookReceiver } from './webhook-receiver';

export type AppName = 'gateway' | 'billing' | 'generation' | 'webhooks';
/** The order a rollout goes through the Deployments (the gateway last: clients talk to it). */
export const ROLLOUT_ORDER: readonly AppName[] = ['billing', 'generation', 'webhooks', 'gateway'];
/** The asynchronous model of the load (bound to the instant engine like the synchronous one). */
const ASYNC_MODEL = 'motion-lite-1';

export interface RollingOptions {
  servers: BenchServers;
  /** Client loops submitting and reading at once. */
  clients: number;
  /** Load before the rollout starts and after it ends (ms). */
  settleMs: number;
  /** New processes a Deployment starts at once before old ones stop (Kubernetes' maxSurge; maxUnavailable is 0): 1 (default, as k8s/ sets) or 2. */
  maxSurge?: 1 | 2;
  /** Called with each step of the rollout (progress). */
  log?: (line: string) => void;
  /** Per service, the checkout whose build it runs before the rollout (default this one: the same release). */
  from?: Partial<Record<AppName, string>>;
  /** The checkout whose build it rolls to (default this one). */
  to?: string;
  /** The order of the Deployments (default ROLLOUT_ORDER). */
  order?: readonly AppName[];
}

export interface RollingResult {
  /** Responses by status (0: no response: a dropped or refused connection). */
  statuses: Record<string, number>;
  /** Requests that were not answered 2xx (a 429 included), with a sample of what they got. */
  errors: number;
  errorSamples: string[];
  /** Submits answered 200 or 202. */
  accepted: number;
  /** Accepted jobs not final 30 s after the load stopped. */
  lost: number;
  /** Accepted jobs that ended failed. */
  failed: number;
  /** Of the accepted jobs, those submitted to the asynchronous model (202). */
  acceptedAsync: number;
  /** Finished jobs whose signed webhook never arrived, and deliveries whose signature did not verify. */
  webhooksMissing: number;
  badSignatures: number;
  /** Credits charged by billing minus the sum of the finished records' `credits_charged`; held credits left. */
  creditsDifference: number;
  creditsHeld: number;
  /** Processes replaced (two per Deployment). */
  replaced: number;
  durationMs: number;
}

/** One replica slot of a Deployment: the process now serving in it. */
interface Slot {
  app: AppName;
  process: AppProcess;
  /** Its HTTP port (the gateway's API port; the others' /readyz and /metrics). */
  port: number;
}

/**
 * A Kubernetes rolling update of every Deployment in turn, simulated with processes: two replicas
 * of each service run on one database and NATS; for each replica, a new process is started, once
 * its /readyz is green the old one is taken out of the ingress (the gateway) and sent SIGTERM
 * (maxUnavailable 0; maxSurge 1 as the manifests in k8s/ set it, or 2: both new processes at once). Meanwhile clients submit synchronous
 * generations (an instant engine: the service is measured, not rendering) and read them, through an
 * ingress that sends each request to a gateway in service. Returns what the clients saw and what
 * became of every accepted job and credit.
 */
export async function runRollingUpdate(options: RollingOptions): Promise<RollingResult> {
  const log = options.log ?? (() => undefined);
  const maxSurge = options.maxSurge ?? 1;
  const from = (app: AppName) => options.from?.[app] ?? ROOT;
  const to = options.to ?? ROOT;
  const token = randomBytes(4).toString('hex');
  const dbName = `gen_rolling_${token}`;
  const streamName = `GEN_ROLL_${token.toUpperCase()}`;
  const storageDir = scratchFolder('gen-rolling-');
  const undo = [deferCleanup(storageDir, async () => rmSync(storageDir, { recursive: true, force: true }))];
  const slots: Slot[] = [];
  // The client loops run while this is true; a failed rollout ends them too (else they call forever).
  let running = true;
  try {
    await ensureDatabase(options.servers.pgAdminUrl, dbName);
    undo.push(deferCleanup(`database ${dbName}`, () => dropDatabase(options.servers.pgAdminUrl, dbName)));
    undo.push(
      deferCleanup(`stream ${streamName}`, async () => {
        const nc = await connect({ servers: options.servers.natsUrl, timeout: 5_000 });
        try {
          await (await nc.jetstreamManager()).streams.delete(streamName).catch(() => false);
        } finally {
          await nc.close();
        }
      }),
    );
    const dbUrl = databaseUrl(options.servers.pgAdminUrl, dbName);
    const secret = randomBytes(32).toString('base64');
    const common: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TZ: 'UTC',
      NODE_ENV: 'production',
      DATABASE_URL: dbUrl,
      DATABASE_POOL_SIZE: '5',
      NATS_URL: options.servers.natsUrl,
      NATS_SUBJECT_PREFIX: `r${token}.`,
      NATS_STREAM: streamName,
      STORAGE_DIR: storageDir,
      LOG_LEVEL: 'warn',
      SHUTDOWN_DELAY_MS: '300',
      SHUTDOWN_TIMEOUT_MS: '10000',
      JOB_POLL_INTERVAL_MS: '100',
      // The customer's webhook endpoint is on this machine, over http.
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    const taken: number[] = [];
    const port = async () => {
      let candidate = await freePort();
      while (taken.includes(candidate)) candidate = await freePort();
      taken.push(candidate);
      return candidate;
    };
    // Output URLs are not fetched here: any CDN base does.
    const cdn = { url: 'http://127.0.0.1:3000/cdn' };
    const start = async (app: AppName, index: number, generation: number): Promise<Slot> => {
      const own = await port();
      const env: NodeJS.ProcessEnv =
        app === 'gateway'
          ? { ...common, PORT: String(own), HOST: '127.0.0.1', PUBLIC_BASE_URL: `http://127.0.0.1:${own}`, WEBHOOK_SECRET_ENCRYPTION_KEY: secret }
          : { ...common, HTTP_PORT: String(own), HTTP_HOST: '127.0.0.1', ...(app === 'generation' ? { CDN_BASE_URL: cdn.url } : {}) };
      // A new process migrates its own schema as it starts, as the Deployment's init container does.
      const child = new AppProcess(`${app}#${index + 1}.${generation}`, join('apps', app, 'src', 'main.js'), env, generation === 1 ? from(app) : to);
      child.start();
      undo.push(deferCleanup(child.label, () => child.stop()));
      // Generous: on a loaded two-core machine two starts at once have taken over a minute.
      await child.waitReady(`http://127.0.0.1:${own}/readyz`, 120_000);
      return { app, process: child, port: own };
    };
    // Every process of the first release at once, as a fresh deployment's pods start.
    const first = (['billing', 'generation', 'webhooks', 'gateway'] as const).flatMap((app) => [0, 1].map((index) => start(app, index, 1)));
    slots.push(...(await Promise.all(first)));
    // The operator's CLI of the release that runs (it writes that release's schemas).
    const receiver = await startWebhookReceiver();
    undo.push(deferCleanup('webhook receiver', () => receiver.close()));
    const key = await provisionWithWebhook(dbUrl, from('gateway'), receiver.url, { WEBHOOK_SECRET_ENCRYPTION_KEY: secret, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    receiver.useSecret(key.webhookSecret);
    await cli(dbUrl, ['models', 'update', '--id', ASYNC_MODEL, '--engine', '{"engine":"instant"}'], { root: from('gateway') });
    await bindModelToInstant(dbUrl, INSTANT_IMAGE, from('gateway'));
    const pool = new Pool({ connectionString: dbUrl, max: 2 });
    undo.push(deferCleanup('pool', () => pool.end()));
    const [{ available: initial }] = (await pool.query<{ available: string }>('SELECT available FROM billing.accounts')).rows;

    // The ingress: each request to a gateway in service, in turn.
    const inService = () => slots.filter((s) => s.app === 'gateway' && !removed.has(s)).map((s) => `http://127.0.0.1:${s.port}`);
    const removed = new Set<Slot>();
    let turn = 0;
    const statuses: Record<string, number> = {};
    const errorSamples: string[] = [];
    const acceptedIds = new Set<string>();
    let acceptedAsync = 0;
    let errors = 0;
    const call = async (method: string, path: string, body?: unknown) => {
      const targets = inService();
      const base = targets[turn++ % targets.length];
      try {
        const res = await request(`${base}${path}`, {
          method: method as 'GET' | 'POST',
          headers: { authorization: `Bearer ${key.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
          headersTimeout: 60_000,
          bodyTimeout: 60_000,
        });
        const text = await res.body.text();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        const parsed = text ? (JSON.parse(text) as { id?: string; error?: { code?: string } }) : {};
        if (res.statusCode >= 300) {
          errors++;
          if (errorSamples.length < 10) errorSamples.push(`${method} ${path}: ${res.statusCode} ${parsed.error?.code ?? ''}`);
        }
        return { status: res.statusCode, body: parsed };
      } catch (error) {
        statuses['0'] = (statuses['0'] ?? 0) + 1;
        errors++;
        if (errorSamples.length < 10) errorSamples.push(`${method} ${path}: ${(error as Error).message}`);
        return { status: 0, body: {} };
      }
    };
    const client = async (index: number) => {
      let n = 0;
      while (running) {
        // Every third submit is asynchronous (202 at once; the dispatcher's webhook tells its end).
        const async = n % 3 === 2;
        const body = async ? { model: ASYNC_MODEL, type: 'TEXT_TO_VIDEO' } : { model: INSTANT_IMAGE, type: 'TEXT_TO_IMAGE' };
        const submitted = await call('POST', '/api/v1/generate', { ...body, prompt: `rolling ${index}.${n++}` });
        if ((submitted.status === 200 || submitted.status === 202) && submitted.body.id) {
          acceptedIds.add(submitted.body.id);
          if (async) acceptedAsync++;
          await call('GET', `/api/v1/generations/${submitted.body.id}`);
        }
        await call('GET', '/api/v1/credits');
      }
    };
    const began = Date.now();
    const clients = Array.from({ length: options.clients }, (_, i) => client(i));
    await sleep(options.settleMs);

    let replaced = 0;
    // One replica: its new process starts; once ready, the old one leaves the endpoints and gets SIGTERM.
    const roll = async (app: AppName, index: number): Promise<{ drained: Promise<void> }> => {
      const old = slots.filter((s) => s.app === app)[index];
      log(`${app} replica ${index + 1}: starting its new process`);
      const fresh = await start(app, index, 2);
      slots.splice(slots.indexOf(old), 1, fresh);
      removed.add(old);
      await sleep(200);
      log(`${app} replica ${index + 1}: SIGTERM to the old process`);
      replaced++;
      return { drained: old.process.stop().then(() => log(`${app} replica ${index + 1}: the old process exited`)) };
    };
    for (const app of options.order ?? ROLLOUT_ORDER) {
      // maxUnavailable 0: an old process gets SIGTERM only once a new one is ready, so another replica
      // of the service always serves. maxSurge 2 starts both new processes at once; maxSurge 1 starts
      // the second while the first old one drains. The next Deployment rolls once this one's old
      // processes are gone.
      const drains =
        maxSurge === 2
          ? await Promise.all([roll(app, 0), roll(app, 1)])
          : [await roll(app, 0), await roll(app, 1)];
      await Promise.all(drains.map((d) => d.drained));
    }
    await sleep(options.settleMs);
    running = false;
    await Promise.all(clients);
    const durationMs = Date.now() - began;

    // Every accepted job final, and charged once: what billing took is what the records say.
    const ids = [...acceptedIds];
    const deadline = Date.now() + 30_000;
    let rows: Array<{ id: string; status: string; credits: number }> = [];
    for (;;) {
      rows = (
        await pool.query<{ id: string; status: string; credits: number }>(
          `SELECT id, status, CASE WHEN status = 'completed' THEN credits ELSE 0 END AS credits FROM generation.jobs WHERE id = ANY($1::uuid[])`,
          [ids],
        )
      ).rows;
      const open = rows.filter((r) => r.status !== 'completed' && r.status !== 'failed').length + (ids.length - rows.length);
      const [{ held }] = (await pool.query<{ held: string }>('SELECT held FROM billing.accounts')).rows;
      const unheard = rows.filter((r) => !receiver.delivered.has(r.id)).length;
      if ((open === 0 && Number(held) === 0 && unheard === 0) || Date.now() > deadline) break;
      await sleep(250);
    }
    const [{ available, held }] = (await pool.query<{ available: string; held: string }>('SELECT available, held FROM billing.accounts')).rows;
    const charged = rows.reduce((sum, r) => sum + Number(r.credits), 0);
    return {
      statuses,
      errors,
      errorSamples,
      accepted: ids.length,
      lost: ids.length - rows.filter((r) => r.status === 'completed' || r.status === 'failed').length,
      failed: rows.filter((r) => r.status === 'failed').length,
      acceptedAsync,
      webhooksMissing: ids.filter((id) => !receiver.delivered.has(id)).length,
      badSignatures: receiver.badSignatures,
      creditsDifference: Number(initial) - Number(available) - charged,
      creditsHeld: Number(held),
      replaced,
      durationMs,
    };
  } catch (error) {
    for (const slot of slots) process.stderr.write(`===== ${slot.process.label} =====\n${slot.process.tail()}\n`);
    throw error;
  } finally {
    running = false;
    await undoAll(undo);
  }
}

/** An enterprise account whose key has a default webhook URL, made with the CLI of the release at `root`. */
async function provisionWithWebhook(dbUrl: string, root: string, url: string, env: Record<string, string>): Promise<{ key: string; webhookSecret: string }> {
  const created = JSON.parse(await cli(dbUrl, ['accounts', 'create', '--name', 'rolling', '--plan', 'enterprise', '--credits', '1000000000', '--json'], { root })) as {
    account_id: string;
    api_key: { id: string; key: string };
  };
  await cli(dbUrl, ['plans', 'set', '--account', created.account_id, '--plan', 'enterprise', '--rpm', '100000000', '--parallel', '256', '--json'], { root });
  const hooked = JSON.parse(
    await cli(dbUrl, ['keys', 'set-webhook-url', '--account', created.account_id, '--key', created.api_key.id, '--url', url, '--json'], { root, env }),
  ) as { webhook_secret: string };
  return { key: created.api_key.key, webhookSecret: hooked.webhook_secret };
}
