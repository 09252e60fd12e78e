import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { eventually, http } from '@gen/testing';
import { newWebhookSecret, verify } from '@gen/webhook-signature';
import { runCli } from '../support/cli';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/**
 * Batches through the public API with every service its own process (gateway, billing, generation,
 * webhooks over NATS and JetStream, one PostgreSQL): a JSONL body checked line by line, its lines run
 * within the account's parallel slots, the results and errors files, credits exact, the
 * `batch.completed` webhook signed with the key's secret; and a cancel that refunds what had not run.
 */
describe('distributed: batches over HTTP', () => {
  let h: DistributedHarness;
  let receiver: Server;
  const received: Received[] = [];
  let hookUrl = '';
  const secret = newWebhookSecret();

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/batches`;
    const loopback = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    h = await startDistributed({ appEnv: { gateway: loopback, webhooks: loopback, generation: { ENGINE_LATENCY_SCALE: '0.3', JOB_POLL_INTERVAL_MS: '100' } } });
  });
  afterAll(async () => {
    await h?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  /** An enterprise account with `parallel` slots and `credits`, its key signing with `secret`. */
  async function account(parallel: number, credits: number): Promise<{ key: string; accountId: string }> {
    const { accountId, key, keyId } = await h.account('pro', credits);
    expect(runCli(h.database.url, 'plans', 'set', '--account', accountId, '--plan', 'enterprise', '--rpm', '100000', '--parallel', String(parallel)).code).toBe(0);
    await h.query('UPDATE auth.api_keys SET webhook_secret = $1 WHERE id = $2', [secret, keyId]);
    // The gateways' copy of the plan follows the operator's change.
    await eventually(async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body, (b) => b.limits?.parallel_tasks === parallel, 10_000, 100);
    return { key, accountId };
  }

  const line = (customId: string, model: string, type: string) => JSON.stringify({ custom_id: customId, body: { model, prompt: `product shot ${customId}`, type } });

  async function createBatch(key: string, query: string, file: string): Promise<{ status: number; location: string | null; body: any }> {
    const res = await fetch(`${h.url}/api/v1/batches?${query}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/jsonl' }, body: file });
    return { status: res.status, location: res.headers.get('location'), body: await res.json() };
  }

  async function jsonl(key: string, path: string): Promise<any[]> {
    const res = await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/jsonl/);
    return (await res.text()).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  }

  const batchOf = (key: string, id: string) => async () => (await http(h.url, 'GET', `/api/v1/batches/${id}`, { key })).body;

  it('runs a batch within the account\'s slots, files its results and errors, charges the batch price once per line and signs batch.completed', async () => {
    const { key, accountId } = await account(3, 10_000);
    const lines = Array.from({ length: 8 }, (_, i) => line(`shot-${i + 1}`, 'pixel-flux-1', 'TEXT_TO_IMAGE'));
    lines.splice(4, 0, line('bad-model', 'no-such-model', 'TEXT_TO_IMAGE'));
    const created = await createBatch(key, `invalid_lines=skip&completion_window=1h&webhook_url=${encodeURIComponent(hookUrl)}`, `${lines.join('\r\n')}\r\n`);
    expect(created.status).toBe(201);
    expect(created.location).toBe(`/api/v1/batches/${created.body.id}`);
    expect(created.body).toMatchObject({ object: 'batch', status: 'in_progress', completion_window: '1h', webhook_url: hookUrl });
    expect(created.body.request_counts).toMatchObject({ total: 9, invalid: 1 });

    let most = 0;
    let view: any;
    const deadline = Date.now() + 60_000;
    do {
      const [busy] = await h.query<{ n: string }>(`SELECT count(*) AS n FROM generation.jobs WHERE account_id = $1 AND status = 'processing'`, [accountId]);
      most = Math.max(most, Number(busy.n));
      view = await batchOf(key, created.body.id)();
      if (view.status !== 'in_progress') break;
      await sleep(50);
    } while (Date.now() < deadline);
    expect(view).toMatchObject({ status: 'completed', credits_charged: 16 });
    expect(view.request_counts).toEqual({ total: 9, invalid: 1, waiting: 0, queued: 0, processing: 0, completed: 8, failed: 0, canceled: 0, expired: 0 });
    // Three slots, one kept free for interactive requests (BATCH_KEEP_FREE_PERCENT): two for the batch.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);

    const results = await jsonl(key, `/api/v1/batches/${created.body.id}/results`);
    expect(results.map((r) => r.custom_id)).toEqual(['shot-1', 'shot-2', 'shot-3', 'shot-4', 'shot-5', 'shot-6', 'shot-7', 'shot-8']);
    expect(results.map((r) => r.line)).toEqual([1, 2, 3, 4, 6, 7, 8, 9]);
    for (const r of results) expect(r).toMatchObject({ outcome: 'completed', error: null, generation: { status: 'completed', model: 'pixel-flux-1', credits_charged: 2 } });
    const errors = await jsonl(key, `/api/v1/batches/${created.body.id}/errors`);
    expect(errors).toEqual([expect.objectContaining({ line: 5, custom_id: 'bad-model', outcome: 'invalid', generation: null, error: expect.objectContaining({ code: expect.any(String) }) })]);
    // The batch price (2, against 4 interactively) for each completed line, nothing for the invalid one, nothing left held.
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body).toMatchObject({ available: 10_000 - 16, held: 0 });

    const hook = await eventually(async () => received.find((r) => JSON.parse(r.raw.toString('utf8')).batch?.id === created.body.id), (r) => r !== undefined, 20_000, 100);
    expect(verify(hook!.raw, hook!.headers, secret).deliveryId).toMatch(/^wh_/);
    expect(JSON.parse(hook!.raw.toString('utf8'))).toMatchObject({ event: 'batch.completed', batch: { id: created.body.id, status: 'completed', request_counts: { completed: 8, invalid: 1 } } });
  });

  it('cancels a batch: lines not started are canceled and never charged, the running ones finish and are charged the batch price the operator set', async () => {
    const { key, accountId } = await account(3, 10_000);
    // The operator's batch discount for the video model, served within seconds.
    expect(runCli(h.database.url, 'models', 'update', '--id', 'motion-lite-1', '--batch-credits', '30').code).toBe(0);
    await eventually(async () => (await http(h.url, 'GET', '/api/v1/models/motion-lite-1', { key })).body, (m) => m.batch_credits === 30, 10_000, 200);
    const file = Array.from({ length: 6 }, (_, i) => line(`clip-${i + 1}`, 'motion-lite-1', 'TEXT_TO_VIDEO')).join('\n');
    const created = await createBatch(key, 'completion_window=1h', file);
    expect(created.status).toBe(201);
    await eventually(batchOf(key, created.body.id), (b) => b.request_counts.processing === 2, 30_000, 100);
    // Two of the account's three slots, never the third: it stays free for an interactive submit, which starts at once.
    // (A line takes about a second here: between one finishing and the next admitted, fewer than two can be busy.)
    for (let i = 0; i < 10; i++) {
      const [busy] = await h.query<{ n: string }>(`SELECT count(*) AS n FROM generation.jobs WHERE account_id = $1 AND status IN ('queued', 'processing')`, [accountId]);
      expect(Number(busy.n)).toBeLessThanOrEqual(2);
      await sleep(100);
    }
    const interactive = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'a red shoe', type: 'TEXT_TO_IMAGE' } });
    expect(interactive.body).toMatchObject({ status: 'completed', credits_charged: 4 });
    const canceled = await http(h.url, 'POST', `/api/v1/batches/${created.body.id}/cancel`, { key });
    expect(canceled.status).toBe(200);
    expect(['canceling', 'canceled']).toContain(canceled.body.status);
    const done = await eventually(batchOf(key, created.body.id), (b) => b.status === 'canceled', 60_000, 200);
    const counts = done.request_counts;
    expect(counts.total).toBe(6);
    expect(counts.completed + counts.canceled + counts.failed).toBe(6);
    // Six lines, two at a time: those still waiting at the cancel (at least the last two) never ran.
    expect(counts.canceled).toBeGreaterThanOrEqual(2);
    expect(counts.completed).toBeGreaterThanOrEqual(2);
    // Only what ran is charged, at the batch price (30, against 40 interactively); nothing stays held.
    expect(done.credits_charged).toBe(30 * counts.completed);
    const credits = await eventually(async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body, (b) => b.held === 0, 20_000, 100);
    expect(credits.available).toBe(10_000 - 30 * counts.completed - 4);
    const errors = await jsonl(key, `/api/v1/batches/${created.body.id}/errors`);
    expect(errors.filter((e) => e.outcome === 'canceled')).toHaveLength(counts.canceled);
  });
});
