import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { newDeliveryId, verify } from '@gen/webhook-signature';
import type { DataSource } from 'typeorm';
import { deliveryStore, DeliveryStore } from '../test/delivery-store';
import { NewDelivery } from '../deliveries/delivery-attempt';
import type { WebhookSecretsService } from '../keys/webhook-secrets.service';
import { newDelivery } from '../test/deliveries';
import { openWebhooksDatabase } from '../webhooks.database';
import { resolveWebhooksSettings } from '../config/webhooks.settings';
import { DeliveryDispatcher } from './delivery-dispatcher.service';
import { WebhookSender } from './webhook-sender';
import type { DeliveryMetrics } from '../metrics/delivery-metrics';

/**
 * The dispatcher against real Postgres and a real receiver: replicas, restarts and a dependency
 * outage. (The full retry schedule over HTTP is covered by test/e2e/webhooks.e2e-spec.ts.)
 */
describe('DeliveryDispatcher', () => {
  let database: TestDatabase;
  let db: DataSource;
  let repo: DeliveryStore;
  let server: Server;
  let url: string;
  const received: Array<{ headers: IncomingHttpHeaders; raw: Buffer; at: number }> = [];
  const running: DeliveryDispatcher[] = [];
  const SECRET = 'whsec_dispatcher_spec';
  const KEY = randomUUID();

  const settings = resolveWebhooksSettings({
    allowHttp: true,
    allowPrivateNetworks: true,
    allowList: [],
    pollIntervalMs: 200,
    leaseMs: 8_000,
  });

  function dispatcher(
    keys: Pick<WebhookSecretsService, 'get'> = { get: async () => ({ secret: SECRET }) },
    overrides: Partial<typeof settings> = {},
    metrics?: DeliveryMetrics,
  ) {
    const d = new DeliveryDispatcher(
      repo.attempts,
      new WebhookSender({ allowHttp: true, allowPrivate: true, allowList: [] }),
      keys as WebhookSecretsService,
      { ...settings, ...overrides },
      metrics,
    );
    running.push(d);
    return d;
  }

  const delivery = (overrides: Partial<NewDelivery> = {}): NewDelivery => newDelivery({ url, ...overrides });

  const statusOf = async (id: string) =>
    (await db.query(`SELECT status, attempts_made FROM deliveries WHERE id = $1`, [id]))[0] as { status: string; attempts_made: number };

  async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  beforeAll(async () => {
    Logger.overrideLogger(false); // expected warnings (a dependency outage) are part of the cases
    database = await createTestDatabase('whdisp');
    db = await openWebhooksDatabase(database.url, 10);
    repo = deliveryStore(db);
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, raw: Buffer.concat(chunks), at: Date.now() });
        // `?delay=<ms>`: a slow receiver, to keep an attempt slot taken.
        const delay = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('delay') ?? 0);
        setTimeout(() => res.writeHead(200).end(), delay);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((d) => d.onApplicationShutdown()));
    received.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await db.destroy();
    await database.drop();
  });

  it('sends a new delivery at once when told (not at the next poll), signed with the key secret', async () => {
    const d = dispatcher(undefined, { pollIntervalMs: 60_000 });
    d.onApplicationBootstrap();
    const nd = delivery();
    await repo.insert([nd]);
    const t0 = Date.now();
    d.schedule(nd.id, nd.firstAttemptAt);
    await until(async () => received.length === 1);
    // The poll is a minute away: only the wake-up can have sent it. (A cold process's first request
    // also opens the connection; the schedule's 100 ms accuracy is asserted in the e2e tier.)
    expect(received[0]!.at - t0).toBeLessThan(1_000);
    expect(verify(received[0]!.raw, received[0]!.headers, SECRET).deliveryId).toBe(nd.id);
    await until(async () => (await statusOf(nd.id)).status === 'succeeded');
  });

  it('submit(): new deliveries are stored and sent at once; beyond the free slots they wait, and each is sent once', async () => {
    let lookups = 0;
    const d = dispatcher(
      {
        get: async () => {
          lookups++;
          return { secret: SECRET };
        },
      },
      { maxInFlight: 4, pollIntervalMs: 60_000 },
    );
    d.onApplicationBootstrap();
    const batch = Array.from({ length: 30 }, () => delivery({ apiKeyId: KEY }));
    const stored = await Promise.all(batch.map((nd) => d.submit(nd)));
    expect(stored).toEqual(batch.map(() => true));
    // The same event again: not stored, not sent.
    expect(await d.submit({ ...batch[0]!, id: newDeliveryId() })).toBe(false);
    await until(async () => {
      const rows = await db.query(`SELECT count(*)::int AS n FROM deliveries WHERE id = ANY($1) AND status = 'succeeded'`, [batch.map((x) => x.id)]);
      return rows[0].n === batch.length;
    });
    const ids = received.map((r) => r.headers['x-service-delivery-id']);
    expect(ids.sort()).toEqual(batch.map((x) => x.id).sort());
    const attempts = await db.query(`SELECT count(*)::int AS n FROM attempts WHERE delivery_id = ANY($1)`, [batch.map((x) => x.id)]);
    expect(attempts[0].n).toBe(batch.length);
    // Attempts that start together ask for their key's secret once.
    expect(lookups).toBeLessThan(batch.length);
    expect(d.stats()).toMatchObject({ inFlight: 0, waitingNew: 0, due: 0 });
  });

  it('submit() with every slot taken: waits for a slot (the event stays unacknowledged), then is stored claimed, or unclaimed after 250 ms', async () => {
    // One slot for new deliveries (maxInFlight 2, 90 % of it for new ones, at least 1); a wait of
    // 250 ms rather than the default second keeps the test short.
    const d = dispatcher(undefined, { maxInFlight: 2, pollIntervalMs: 60_000, admissionWaitMs: 250 });
    d.onApplicationBootstrap();
    const claim = jest.spyOn(repo.attempts, 'claim');
    try {
      // A slot held for 1 s: the next delivery cannot have it within the 250 ms it may wait, so it
      // is stored unclaimed at about 250 ms (its event can then be acknowledged) and sent once the slot frees.
      const slow = delivery({ url: `${url}?delay=1000` });
      expect(await d.submit(slow)).toBe(true);
      const waiting = delivery();
      const t0 = Date.now();
      expect(await d.submit(waiting)).toBe(true);
      const storedAfter = Date.now() - t0;
      expect(storedAfter).toBeGreaterThanOrEqual(240);
      expect(storedAfter).toBeLessThan(900);
      expect(await statusOf(waiting.id)).toEqual({ status: 'pending', attempts_made: 0 });
      await until(async () => (await statusOf(waiting.id)).status === 'succeeded');
      expect(claim).toHaveBeenCalledTimes(1);

      // A slot held for 100 ms: the next delivery waits for it and is stored already claimed.
      claim.mockClear();
      const brief = delivery({ url: `${url}?delay=100` });
      expect(await d.submit(brief)).toBe(true);
      const next = delivery();
      const t1 = Date.now();
      expect(await d.submit(next)).toBe(true);
      expect(Date.now() - t1).toBeGreaterThanOrEqual(60);
      await until(async () => (await statusOf(next.id)).status === 'succeeded');
      expect(claim).not.toHaveBeenCalled();
      const sent = received.map((r) => r.headers['x-service-delivery-id']);
      expect(sent.sort()).toEqual([slow.id, waiting.id, brief.id, next.id].sort());
    } finally {
      claim.mockRestore();
    }
  });

  it('at shutdown, new deliveries still waiting for a slot are stored (unclaimed) before it ends', async () => {
    const d = dispatcher(undefined, { maxInFlight: 2, pollIntervalMs: 60_000 });
    d.onApplicationBootstrap();
    expect(await d.submit(delivery({ url: `${url}?delay=500` }))).toBe(true);
    const waiting = delivery();
    const stored = d.submit(waiting);
    await new Promise((r) => setTimeout(r, 50));
    await d.onApplicationShutdown();
    expect(await stored).toBe(true);
    expect(await statusOf(waiting.id)).toEqual({ status: 'pending', attempts_made: 0 });
    // Left pending for the next process; not for the next test's dispatcher.
    await db.query(`DELETE FROM deliveries WHERE id = $1`, [waiting.id]);
  });

  it('reports each attempt and each finished delivery to the metrics', async () => {
    const reported: unknown[] = [];
    const metrics: DeliveryMetrics = {
      attemptFinished: (a) => reported.push(['attempt', a.outcome, a.attemptNumber]),
      deliveryFinished: (outcome) => reported.push(['delivery', outcome]),
    };
    const d = dispatcher(undefined, { pollIntervalMs: 60_000 }, metrics);
    d.onApplicationBootstrap();
    const nd = delivery();
    expect(await d.submit(nd)).toBe(true);
    await until(async () => (await statusOf(nd.id)).status === 'succeeded');
    await until(async () => reported.length === 2);
    expect(reported).toEqual([
      ['attempt', 'succeeded', 1],
      ['delivery', 'succeeded'],
    ]);
  });

  it('two replicas over the same deliveries send each one exactly once', async () => {
    const [a, b] = [dispatcher(), dispatcher()];
    const batch = Array.from({ length: 60 }, () => delivery());
    for (const nd of batch) await repo.insert([nd]);
    // Both learn about every delivery (as after a restart, through their polls) and race for them.
    for (const nd of batch) {
      a.schedule(nd.id, nd.firstAttemptAt);
      b.schedule(nd.id, nd.firstAttemptAt);
    }
    a.onApplicationBootstrap();
    b.onApplicationBootstrap();
    await until(async () => {
      const rows = await db.query(`SELECT count(*)::int AS n FROM deliveries WHERE id = ANY($1) AND status = 'succeeded'`, [batch.map((x) => x.id)]);
      return rows[0].n === batch.length;
    });
    await new Promise((r) => setTimeout(r, 300));
    const ids = received.map((r) => r.headers['x-service-delivery-id']);
    expect(ids).toHaveLength(batch.length);
    expect(new Set(ids).size).toBe(batch.length);
  });

  it('after a restart, an attempt interrupted by a crash is counted and the next one goes once the lease expires', async () => {
    const nd = delivery();
    await repo.insert([nd]);
    // A process claimed attempt 1 (it may have sent it) and died: its lease runs for 600 ms.
    const [dead] = await repo.claim([nd.id], Date.now(), 600);
    expect(dead!.number).toBe(1);
    const d = dispatcher();
    d.onApplicationBootstrap(); // the restarted process: only its poll knows about the delivery
    await until(async () => received.length === 1, 5_000);
    expect(received[0]!.headers['x-service-delivery-id']).toBe(nd.id);
    await until(async () => (await statusOf(nd.id)).status === 'succeeded');
    expect(await statusOf(nd.id)).toEqual({ status: 'succeeded', attempts_made: 2 });
    const attempts = await db.query(`SELECT number, error_class, status_code FROM attempts WHERE delivery_id = $1 ORDER BY number`, [nd.id]);
    expect(attempts).toEqual([
      { number: 1, error_class: 'interrupted', status_code: null },
      { number: 2, error_class: null, status_code: 200 },
    ]);
  });

  it('a delivery due later, known only from the database, is sent on time (not at the next poll)', async () => {
    const due = Date.now() + 1_500;
    const nd = delivery({ firstAttemptAt: due });
    await repo.insert([nd]);
    // Polls a minute apart: only the timer set from the bootstrap poll can send it near its time.
    // (The schedule's 100 ms accuracy is asserted in the e2e tier; here, "not a poll later".)
    const d = dispatcher(undefined, { pollIntervalMs: 60_000 });
    d.onApplicationBootstrap();
    await until(async () => received.length === 1, 5_000);
    expect(received[0]!.at - due).toBeGreaterThanOrEqual(-20);
    expect(received[0]!.at - due).toBeLessThan(1_000);
  });

  it('does not spend an attempt when the signing secret cannot be read', async () => {
    let calls = 0;
    const d = dispatcher({
      get: async () => {
        if (++calls === 1) throw new Error('gateway unavailable');
        return { secret: SECRET };
      },
    });
    d.onApplicationBootstrap();
    const nd = delivery();
    await repo.insert([nd]);
    d.schedule(nd.id, nd.firstAttemptAt);
    await until(async () => (await statusOf(nd.id)).status === 'succeeded', 5_000);
    expect(await statusOf(nd.id)).toEqual({ status: 'succeeded', attempts_made: 1 });
    expect(received).toHaveLength(1);
  });

  it('does not send unsigned: a key without a secret fails the attempt without a request', async () => {
    const d = dispatcher({ get: async () => ({ secret: null }) });
    d.onApplicationBootstrap();
    const nd = delivery();
    await repo.insert([nd]);
    d.schedule(nd.id, nd.firstAttemptAt);
    // attempts_made counts the claim; the outcome is recorded just after it (wait for both: under load they are apart).
    const recorded = async () => (await db.query(`SELECT error_class, error FROM attempts WHERE delivery_id = $1 AND duration_ms IS NOT NULL`, [nd.id]))[0];
    await until(async () => (await statusOf(nd.id)).attempts_made === 1 && (await statusOf(nd.id)).status === 'pending' && (await recorded()) !== undefined);
    const attempt = await recorded();
    expect(attempt).toMatchObject({ error_class: 'no_secret' });
    expect(received).toHaveLength(0);
  });
});
