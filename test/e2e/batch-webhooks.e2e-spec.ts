import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchFinishedEvent, BatchView, Events } from '@gen/contracts';
import { EventPublisher } from '@gen/transport';
import { verify } from '@gen/webhook-signature';
import { DeliveriesAdminRepository } from '../../apps/webhooks/src/admin/deliveries-admin.repository';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records every request; a path's n-th request (n from 1) is answered with `status(n)`. */
class Receiver {
  readonly received: Array<{ path: string; headers: IncomingHttpHeaders; raw: Buffer }> = [];
  private readonly statuses = new Map<string, (n: number) => number>();
  private server!: Server;
  base = '';
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        this.received.push({ path, headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead((this.statuses.get(path) ?? (() => 200))(this.at(path).length)).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  on(path: string, status: (n: number) => number = () => 200): string {
    this.statuses.set(path, status);
    return `${this.base}${path}`;
  }
  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }
  async waitFor(path: string, count: number, ms = 15_000) {
    const deadline = Date.now() + ms;
    while (this.at(path).length < count) {
      if (Date.now() > deadline) throw new Error(`${path}: ${this.at(path).length} of ${count} requests after ${ms} ms`);
      await sleep(20);
    }
    return this.at(path);
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * `batch.completed` end to end (standalone, real PostgreSQL): the event published on the transport as
 * generation's outbox relay publishes it, the webhooks service's handler and dispatcher, and the signed
 * delivery received by a local receiver (its signature verified with the creating key's secret).
 */
describe('standalone: batch.completed webhooks', () => {
  let h: StandaloneHarness;
  const receiver = new Receiver();
  let counter = 0;

  beforeAll(async () => {
    await receiver.start();
    h = await startStandaloneHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await receiver.stop();
  });

  async function keyWithSecret() {
    const account = await h.account('pro', 100);
    const secret = `whsec_batch${++counter}x${Math.random().toString(36).slice(2)}`;
    await h.running.databases.auth.query(`UPDATE api_keys SET webhook_secret = $2 WHERE id = $1`, [account.keyId, secret]);
    return { ...account, secret };
  }

  const batchView = (webhookUrl: string | null): BatchView => ({
    id: `batch_${randomUUID().replace(/-/g, '')}`,
    object: 'batch',
    status: 'completed',
    completion_window: '24h',
    created_at: '2026-11-26T16:00:00.000Z',
    expires_at: '2026-11-27T16:00:00.000Z',
    finished_at: '2026-11-26T16:30:00.123Z',
    canceled_at: null,
    request_counts: { total: 2, invalid: 0, waiting: 0, queued: 0, processing: 0, completed: 1, failed: 1, canceled: 0, expired: 0 },
    credits_charged: 4,
    webhook_url: webhookUrl,
    metadata: { run: 'nightly' },
  });

  /**
   * Publishes the event on the transport the webhooks service consumes (in process here; JetStream in
   * distributed mode), as generation's outbox relay does; resolves once the handler has stored it.
   * Each call is a new message, as a redelivery after the transport's dedupe window would be.
   */
  async function publish(event: BatchFinishedEvent): Promise<void> {
    await h.running.app.get(EventPublisher).publish(Events.batchCompleted, event, randomUUID());
  }

  async function deliveriesOf(eventId: string) {
    return h.running.databases.webhooks.query(
      `SELECT id, status, attempts_made, job_id, api_key_id, event, url, body FROM deliveries WHERE event_id = $1 ORDER BY created_at`,
      [eventId],
    ) as Promise<Array<{ id: string; status: string; attempts_made: number; job_id: string | null; api_key_id: string; event: string; url: string; body: Buffer }>>;
  }

  async function waitForStatus(eventId: string, status: string, ms = 20_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const [d] = await deliveriesOf(eventId);
      if (d?.status === status) return d;
      if (Date.now() > deadline) throw new Error(`delivery of ${eventId} is ${d?.status ?? 'missing'}, not ${status}`);
      await sleep(25);
    }
  }

  const finished = (k: { accountId: string; keyId: string }, webhookUrl: string | null): BatchFinishedEvent => ({
    eventId: randomUUID(),
    event: 'batch.completed',
    accountId: k.accountId,
    apiKeyId: k.keyId,
    webhookUrl,
    batch: batchView(webhookUrl),
  });

  it('one signed delivery of the envelope with the batch, made once though the event comes twice', async () => {
    const k = await keyWithSecret();
    const event = finished(k, receiver.on('/batch-once'));
    await publish(event);
    const [r] = await receiver.waitFor('/batch-once', 1);
    expect(r!.headers['x-service-event']).toBe('batch.completed');
    expect(verify(r!.raw, r!.headers, k.secret)).toMatchObject({ event: 'batch.completed', deliveryId: r!.headers['x-service-delivery-id'] });
    expect(() => verify(r!.raw, r!.headers, 'whsec_not_the_key_secret')).toThrow();
    const body = JSON.parse(r!.raw.toString('utf8'));
    expect(Object.keys(body)).toEqual(['event', 'id', 'account_id', 'created_at', 'batch']);
    expect(body).toEqual({ event: 'batch.completed', id: event.eventId, account_id: k.accountId, created_at: event.batch.finished_at, batch: event.batch });

    const delivery = await waitForStatus(event.eventId, 'succeeded');
    expect(delivery).toMatchObject({ attempts_made: 1, job_id: null, api_key_id: k.keyId, event: 'batch.completed', url: event.webhookUrl });
    expect(delivery.body.equals(r!.raw)).toBe(true);

    // The very same event again (same event id), as a redelivery by the transport would bring it.
    await publish(event);
    await sleep(500);
    expect(await deliveriesOf(event.eventId)).toHaveLength(1);
    expect(receiver.at('/batch-once')).toHaveLength(1);
  });

  it('retries a receiver that answers 500, under the same delivery id and body', async () => {
    const k = await keyWithSecret();
    const event = finished(k, receiver.on('/batch-retry', (n) => (n === 1 ? 500 : 200)));
    await publish(event);
    const [first, second] = await receiver.waitFor('/batch-retry', 2);
    expect(second!.headers['x-service-delivery-id']).toBe(first!.headers['x-service-delivery-id']);
    expect(second!.raw.equals(first!.raw)).toBe(true);
    expect(verify(second!.raw, second!.headers, k.secret)).toMatchObject({ event: 'batch.completed' });
    const delivery = await waitForStatus(event.eventId, 'succeeded');
    expect(delivery.attempts_made).toBe(2);
    const attempts = await h.running.databases.webhooks.query(`SELECT number, status_code FROM attempts WHERE delivery_id = $1 ORDER BY number`, [delivery.id]);
    expect(attempts).toEqual([
      { number: 1, status_code: 500 },
      { number: 2, status_code: 200 },
    ]);
  });

  it('fails for good after three 500s, and is no generation the operator CLI retries', async () => {
    const k = await keyWithSecret();
    const event = finished(k, receiver.on('/batch-down', () => 500));
    await publish(event);
    await receiver.waitFor('/batch-down', 3, 20_000);
    const delivery = await waitForStatus(event.eventId, 'failed');
    expect(delivery.attempts_made).toBe(3);
    // `deliveries retry` redelivers generations' failed deliveries: a batch's is none of them.
    const failed = await new DeliveriesAdminRepository(h.running.databases.webhooks).failedSince(new Date(0), { accountId: k.accountId, limit: 10 });
    expect(failed).toEqual([]);
  });

  it('a batch with no destination (null webhookUrl) sends nothing', async () => {
    const k = await keyWithSecret();
    const event = finished(k, null);
    const before = receiver.received.length;
    await publish(event);
    await sleep(500);
    expect(await deliveriesOf(event.eventId)).toEqual([]);
    expect(receiver.received.length).toBe(before);
  });
});
