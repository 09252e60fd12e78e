import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@gen/persistence';
import { eventually, http } from '@gen/testing';
import { newWebhookSecret } from '@gen/webhook-signature';
import { APP_NAMES, DistributedHarness, startDistributed } from '../support/distributed-harness';

const NATS_SERVER = '/usr/sbin/nats-server';
/** How long the NATS server stays down. */
const OUTAGE_MS = 25_000;
/** The gateway's SYNC_WAIT_MS here: longer than the outage, so a sync submit can be answered by a read of its job after NATS is back. */
const SYNC_WAIT_MS = 40_000;
const APP_PIDS = (h: DistributedHarness) => APP_NAMES.map((app) => h.pids(app));

/**
 * A NATS server (with JetStream, file store) of this test's own, so it can be stopped and started
 * again without touching the shared one: same port and store folder each time, as a restarted
 * server in a deployment keeps its address and its volume.
 */
class PrivateNats {
  private child?: ChildProcess;
  private exited: Promise<void> = Promise.resolve();
  private output = '';

  constructor(
    readonly port: number,
    readonly storeDir: string,
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the server and resolves once it accepts clients ("Server is ready"). */
  async start(timeoutMs = 10_000): Promise<void> {
    const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nats-server did not start in ${timeoutMs} ms:\n${this.output}`)), timeoutMs);
      const onData = (chunk: Buffer) => {
        this.output += chunk.toString('utf8');
        if (this.output.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`nats-server exited (${signal ?? code}) while starting:\n${this.output}`));
      });
    });
  }

  /** SIGTERM (SIGKILL after 10 s) and waits for the process to be gone. */
  async stop(): Promise<void> {
    if (!this.running || !this.child) return;
    const child = this.child;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Records the webhook POSTs it receives and answers 200 (the delivery succeeds). */
async function startReceiver(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * At-least-once across a NATS outage: jobs that finish while the NATS server is down are written
 * with their outbox rows; the relay retries, and once the server is back (same store) billing and
 * webhooks receive every event from their durable consumers, and every hold is captured once.
 */
describe('distributed: events and sync waits survive the NATS server being down when jobs finish', () => {
  let nats: PrivateNats;
  let storeDir: string;
  let h: DistributedHarness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    storeDir = mkdtempSync(join(tmpdir(), 'gen-nats-outage-'));
    nats = new PrivateNats(await freePort(), storeDir);
    await nats.start();
    receiver = await startReceiver();
    // tone-weaver-1 has 1000 ms of simulated latency: x2 leaves time to stop NATS mid-job.
    h = await startDistributed({ natsUrl: nats.url, appEnv: { generation: { ENGINE_LATENCY_SCALE: '2' }, gateway: { SYNC_WAIT_MS: String(SYNC_WAIT_MS) } } });
    // Synchronous models for the waits across the outage: one done while NATS is away, one still running at SYNC_WAIT_MS.
    await h.query(
      `INSERT INTO generation.models (id, name, type, credits, minimum_credits, synchronous, min_plan, status, engine, provider, description) VALUES
         ('outage-sync-short', 'Sync, done in the outage', 'TEXT_TO_IMAGE', 2, 2, true, 'free', 'active', '{"engine": "image", "width": 64, "height": 64, "latencyMs": 3000}', 'demo', ''),
         ('outage-sync-long', 'Sync, still running at the deadline', 'TEXT_TO_IMAGE', 2, 2, true, 'free', 'active', '{"engine": "image", "width": 64, "height": 64, "latencyMs": 60000}', 'demo', '')`,
    );
  });
  afterAll(async () => {
    // The harness removes the stream over NATS: let it find the server up.
    if (nats && !nats.running) await nats.start().catch(() => undefined);
    try {
      await h?.close();
    } finally {
      await nats?.stop();
      await receiver?.close();
      if (storeDir) rmSync(storeDir, { recursive: true, force: true });
    }
  });


  const jobStatuses = (ids: string[]) =>
    h.query<{ id: string; status: string }>('SELECT id, status FROM generation.jobs WHERE id = ANY($1::uuid[]) ORDER BY id', [ids]);
  const holds = (ids: string[]) =>
    h.query<{ job_id: string; amount: number; status: string }>('SELECT job_id, amount, status FROM billing.holds WHERE job_id = ANY($1::uuid[]) ORDER BY job_id', [ids]);
  const outbox = (ids: string[]) =>
    h.query<{ job: string; pattern: string; published_at: Date | null; publish_attempts: number }>(
      `SELECT payload->'record'->>'id' AS job, pattern, published_at, publish_attempts FROM generation.outbox
       WHERE payload->'record'->>'id' = ANY($1::text[]) ORDER BY 1`,
      [ids],
    );

  it('captures every hold exactly once, delivers every webhook after NATS comes back, and answers each waiting sync submit by its job', async () => {
    const { key, keyId, accountId } = await h.account('pro', 100);
    // A signing secret on the key (stored in clear, which the gateway accepts) allows webhook_url.
    await h.query('UPDATE auth.api_keys SET webhook_secret = $1 WHERE id = $2', [newWebhookSecret(), keyId]);
    // No app restarts on the way: the same processes reconnect.
    const pidsBefore = APP_PIDS(h);
    const jobIds: string[] = [];
    for (const prompt of ['rain on a tin roof', 'a distant bell', 'waves at night']) {
      const res = await http(h.url, 'POST', '/api/v1/generate', {
        key,
        body: { model: 'tone-weaver-1', prompt, type: 'TEXT_TO_AUDIO', webhook_url: receiver.url },
      });
      expect(res.status).toBe(202);
      jobIds.push(res.body.id);
    }
    jobIds.sort();

    // Sync submits of another account, waiting when NATS goes away: their replies and final-state
    // notices are lost with it. Each must still be answered by the job: 200 with the finished record
    // once a read after NATS is back finds it done, else 202 at SYNC_WAIT_MS, never later.
    const syncAccount = await h.account('pro', 100);
    const syncSubmit = async (model: string) => {
      const began = Date.now();
      const res = await http(h.url, 'POST', '/api/v1/generate', { key: syncAccount.key, body: { model, prompt: 'across the outage', type: 'TEXT_TO_IMAGE' } });
      return { status: res.status, body: res.body, tookMs: Date.now() - began };
    };
    const shortWait = syncSubmit('outage-sync-short');
    const longWait = syncSubmit('outage-sync-long');
    const syncJobs = await eventually(
      () => h.query<{ id: string; model_id: string; status: string }>('SELECT id, model_id, status FROM generation.jobs WHERE account_id = $1', [syncAccount.accountId]),
      (rows) => rows.length === 2 && rows.every((r) => r.status === 'processing'),
      10_000,
    );
    expect(syncJobs.map((r) => r.status)).toEqual(['processing', 'processing']);

    const processing = await eventually(
      () => jobStatuses(jobIds),
      (rows) => rows.length === jobIds.length && rows.every((r) => r.status === 'processing'),
      10_000,
    );
    expect(processing.map((r) => r.status)).toEqual(jobIds.map(() => 'processing'));

    // NATS goes away while the engines are still working.
    await nats.stop();
    const downSince = Date.now();

    const completed = await eventually(
      () => jobStatuses(jobIds),
      (rows) => rows.every((r) => r.status === 'completed'),
      15_000,
    );
    expect(completed.map((r) => r.status)).toEqual(jobIds.map(() => 'completed'));
    const shortJob = syncJobs.find((r) => r.model_id === 'outage-sync-short')!.id;
    const doneInOutage = await eventually(() => jobStatuses([shortJob]), (rows) => rows[0]?.status === 'completed', 15_000);
    expect({ status: doneInOutage[0].status, nats: nats.running }).toEqual({ status: 'completed', nats: false });
    // Written, not published: the relay has tried (and failed); it stops a pass at the first failure.
    const pending = await eventually(
      () => outbox(jobIds),
      (rows) => rows.length === jobIds.length && rows.some((r) => r.publish_attempts > 0),
      5_000,
    );
    expect(pending.some((r) => r.publish_attempts > 0)).toBe(true);
    expect(pending).toHaveLength(jobIds.length);
    for (const row of pending) expect(row).toMatchObject({ pattern: 'generation.completed', published_at: null });
    expect((await holds(jobIds)).map((r) => r.status)).toEqual(jobIds.map(() => 'held'));
    expect(await h.query('SELECT id FROM webhooks.deliveries WHERE job_id = ANY($1::uuid[])', [jobIds])).toEqual([]);

    // Longer than nats.js's default reconnect budget (10 attempts, 2 s apart), after which a client
    // that does not retry for ever closes its connection for good.
    await new Promise((r) => setTimeout(r, Math.max(0, downSince + OUTAGE_MS - Date.now())));
    // Same port, same store: the stream and the durable consumers are still there.
    await nats.start();

    // The job done in the outage: 200 with its finished record, found by a read once NATS is back,
    // before the wait was over (it used to wait for a reply that was lost, then answer 202 at 40 s).
    const short = await shortWait;
    expect({ status: short.status, id: short.body.id, record: short.body.status, early: short.tookMs < SYNC_WAIT_MS }).toEqual({
      status: 200,
      id: shortJob,
      record: 'completed',
      early: true,
    });

    const published = await eventually(
      () => outbox(jobIds),
      (rows) => rows.every((r) => r.published_at !== null),
      30_000,
    );
    expect(published.filter((r) => r.published_at === null)).toEqual([]);

    const balance = await eventually(
      async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body,
      (b) => b?.held === 0,
      20_000,
    );
    expect(balance).toMatchObject({ available: 70, held: 0 });
    expect(await holds(jobIds)).toEqual(jobIds.map((job_id) => ({ job_id, amount: 10, status: 'captured' })));
    const captures = await h.query<{ job_id: string; n: number }>(
      `SELECT job_id, count(*)::int AS n FROM billing.ledger WHERE account_id = $1 AND kind = 'capture' GROUP BY job_id ORDER BY job_id`,
      [accountId],
    );
    expect(captures).toEqual(jobIds.map((job_id) => ({ job_id, n: 1 })));

    // Webhooks got each event too: one delivery per job, received by the endpoint.
    const deliveries = await eventually(
      () => h.query<{ job_id: string; event: string; status: string }>(
        'SELECT job_id, event, status FROM webhooks.deliveries WHERE job_id = ANY($1::uuid[]) ORDER BY job_id',
        [jobIds],
      ),
      (rows) => rows.length === jobIds.length && rows.every((r) => r.status === 'succeeded'),
      20_000,
    );
    expect(deliveries).toEqual(jobIds.map((job_id) => ({ job_id, event: 'generation.completed', status: 'succeeded' })));
    expect(jobIds.map((id) => receiver.bodies.filter((body) => body.includes(id)).length)).toEqual(jobIds.map(() => 1));

    // Every app reconnected: each is ready again, and a synchronous generation goes
    // gateway -> billing (hold) -> generation -> billing (capture from the event).
    for (const app of ['gateway', 'billing', 'generation', 'webhooks'] as const) {
      const ready = await eventually(
        async () => (await fetch(`${h.httpUrl(app)}/readyz`)).status,
        (status) => status === 200,
        10_000,
      );
      expect({ app, ready }).toEqual({ app, ready: 200 });
    }
    const image = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'a lighthouse', type: 'TEXT_TO_IMAGE' } });
    expect(image.status).toBe(200);
    expect(image.body).toMatchObject({ status: 'completed' });
    const after = await eventually(
      async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body,
      (b) => b?.held === 0 && b?.available === 66,
      15_000,
    );
    expect(after).toMatchObject({ available: 66, held: 0 });
    // The job still running: 202 with its record at SYNC_WAIT_MS, not later (a bounded margin for a loaded machine).
    const long = await longWait;
    expect({ status: long.status, record: long.body.status, inTime: long.tookMs >= SYNC_WAIT_MS - 1_000 && long.tookMs < SYNC_WAIT_MS + 5_000 }).toEqual({
      status: 202,
      record: 'processing',
      inTime: true,
    });
    expect((await http(h.url, 'POST', `/api/v1/generations/${long.body.id}/cancel`, { key: syncAccount.key })).status).toBe(200);
    expect(APP_PIDS(h)).toEqual(pidsBefore);
  }, 180_000);
});
