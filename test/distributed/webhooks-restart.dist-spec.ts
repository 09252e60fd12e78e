import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { http } from '@gen/testing';
import { newWebhookSecret, verify } from '@gen/webhook-signature';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

/**
 * The webhooks service as its own process, killed with SIGKILL in the middle of the retry schedule
 * of many deliveries, then started again: every delivery resumes where it was (an overdue attempt
 * goes at once), none is lost, none is sent a fourth time, and each delivery's attempts carry one
 * delivery id and the same body bytes. Events that finish while it is down are delivered after.
 */

/** How the receiver answers a delivery's n-th request (n from 1). `null`: never answers. */
const GROUPS = {
  /** 500, then 200. */
  ok2: (n: number) => (n === 1 ? 500 : 200),
  /** 500, 500, then 200. */
  ok3: (n: number) => (n <= 2 ? 500 : 200),
  /** 500, then hangs (attempt 2 is in flight when the process is killed), then 200. */
  hang2: (n: number) => (n === 1 ? 500 : n === 2 ? null : 200),
  /** Always 500: fails for good after three attempts. */
  fail3: () => 500,
  /** 200 at once (events that finish while the webhooks process is down). */
  ok1: () => 200,
} satisfies Record<string, (n: number) => number | null>;
type Group = keyof typeof GROUPS;

interface Received {
  group: Group;
  deliveryId: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** Epoch ms when the request had fully arrived. */
  at: number;
  /** Epoch ms when the answer was sent; null for a request left hanging. */
  answeredAt: number | null;
}

class Receiver {
  readonly received: Received[] = [];
  private server!: Server;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const group = (req.url ?? '').replace('/hook/', '') as Group;
        const deliveryId = String(req.headers['x-service-delivery-id']);
        const record: Received = { group, deliveryId, headers: req.headers, raw: Buffer.concat(chunks), at: Date.now(), answeredAt: null };
        this.received.push(record);
        const status = (GROUPS[group] ?? GROUPS.ok1)(this.of(deliveryId).length);
        if (status === null) return; // hangs until the connection is closed
        res.writeHead(status).end();
        record.answeredAt = Date.now();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  url(group: Group): string {
    return `${this.base}/hook/${group}`;
  }

  of(deliveryId: string): Received[] {
    return this.received.filter((r) => r.deliveryId === deliveryId);
  }

  forJob(jobId: string): Received[] {
    return this.received.filter((r) => (JSON.parse(r.raw.toString('utf8')) as { id: string }).id === jobId);
  }
}

interface DeliveryRow {
  id: string;
  job_id: string;
  status: string;
  attempts_made: number;
  next_attempt_at: Date | null;
  lease_until: Date | null;
  body: Buffer;
}
interface AttemptRow {
  delivery_id: string;
  number: number;
  started_at: Date;
  duration_ms: number | null;
  status_code: number | null;
  error_class: string | null;
}

const LEASE_MS = 8_000;
const PER_GROUP = 8;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('distributed: webhook deliveries survive kill -9 of the webhooks process', () => {
  let h: DistributedHarness;
  const receiver = new Receiver();
  const secret = newWebhookSecret();
  let key: string;

  beforeAll(async () => {
    await receiver.start();
    const loopback = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    h = await startDistributed({
      appEnv: {
        gateway: loopback,
        // The shortest lease the service accepts, and a quick poll: the test waits for both.
        webhooks: { ...loopback, WEBHOOK_LEASE_MS: String(LEASE_MS), WEBHOOK_POLL_INTERVAL_MS: '200' },
      },
    });
    const account = await h.account('enterprise', 100_000);
    key = account.key;
    // The key's signing secret, written as an operator's SQL would: the gateway reads a clear
    // `whsec_` value as it is (the dashboard stores secrets encrypted; both are read alike).
    await h.query('UPDATE auth.api_keys SET webhook_secret = $1 WHERE id = $2', [secret, account.keyId]);
  });
  afterAll(async () => {
    await h?.close();
    await receiver.stop();
  });

  async function until<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  }

  /** Submits generations whose webhook_url is the group's receiver path; returns their job ids. */
  async function generate(group: Group, count: number): Promise<string[]> {
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const res = await http(h.url, 'POST', '/api/v1/generate', {
          key,
          body: { model: 'pixel-flux-1', prompt: `${group} ${i} ${randomUUID()}`, type: 'TEXT_TO_IMAGE', webhook_url: receiver.url(group) },
        });
        expect([200, 202]).toContain(res.status);
        return res.body.id as string;
      }),
    );
  }

  const deliveries = () => h.query<DeliveryRow>('SELECT * FROM webhooks.deliveries');
  const attempts = () => h.query<AttemptRow>('SELECT * FROM webhooks.attempts ORDER BY delivery_id, number');

  it('resumes every delivery where it was after SIGKILL: overdue attempts at once, none lost, none sent a fourth time', async () => {
    const jobs = new Map<string, Group>();
    // The hanging group first, all at once, so that all its attempts 2 are in flight together.
    for (const id of await generate('hang2', PER_GROUP)) jobs.set(id, 'hang2');
    for (const group of ['ok2', 'ok3', 'fail3'] as const) for (const id of await generate(group, PER_GROUP)) jobs.set(id, group);

    // Kill -9 while every hang2 delivery's attempt 2 is in flight (the receiver holds it).
    const hang2Jobs = [...jobs].filter(([, g]) => g === 'hang2').map(([id]) => id);
    await until('attempt 2 of every hang2 delivery', () => hang2Jobs.map((id) => receiver.forJob(id).length), (n) => n.every((c) => c >= 2), 30_000);
    await h.kill('webhooks', 'SIGKILL');
    const killedAt = Date.now();
    const atKill = await deliveries();
    const attemptsAtKill = await attempts();
    const inFlightAtKill = new Set(
      hang2Jobs
        .map((id) => receiver.forJob(id)[1]!)
        .filter((r) => r.answeredAt === null && killedAt - r.at < 4_500)
        .map((r) => r.deliveryId),
    );
    expect(inFlightAtKill.size).toBeGreaterThan(0);
    const sentBeforeRestart = receiver.received.length;

    // While it is down: more generations finish (their events wait in JetStream), and every
    // pending retry that was scheduled in the next 7 s becomes overdue.
    for (const id of await generate('ok1', PER_GROUP)) jobs.set(id, 'ok1');
    await sleep(Math.max(0, killedAt + 7_000 - Date.now()));
    expect(receiver.received.length).toBe(sentBeforeRestart);

    await h.restart('webhooks');
    const restartedAt = Date.now();

    // Everything finishes: the leases of the interrupted attempts expire, then their next attempt goes.
    const final = await until(
      'every delivery to finish',
      deliveries,
      (rows) => rows.length === jobs.size && rows.every((d) => d.status !== 'pending'),
      60_000,
    );
    await sleep(1_000); // nothing more may arrive after the end
    const allAttempts = await attempts();

    // One delivery per generation: none lost (the ones that finished during the outage included).
    expect(new Set(final.map((d) => d.job_id))).toEqual(new Set(jobs.keys()));
    expect(final).toHaveLength(jobs.size);

    for (const d of final) {
      const group = jobs.get(d.job_id) as Group;
      const sent = receiver.of(d.id);
      const tries = allAttempts.filter((a) => a.delivery_id === d.id);
      const label = `${group} ${d.id}`;
      // Never a fourth: neither on the wire nor in the log. An attempt counted but never sent (the
      // process died between the claim and the request) can make the wire count lower, never higher.
      expect(sent.length).toBeLessThanOrEqual(3);
      expect(sent.length).toBeLessThanOrEqual(d.attempts_made);
      expect(tries.map((t) => t.number)).toEqual(Array.from({ length: d.attempts_made }, (_, i) => i + 1));
      expect(tries.filter((t) => t.error_class !== 'interrupted').length).toBeLessThanOrEqual(sent.length);
      // The same delivery id and body bytes at every attempt, each signed with the key's secret.
      for (const r of sent) {
        expect(r.raw.equals(d.body)).toBe(true);
        expect(verify(r.raw, r.headers, secret).deliveryId).toBe(d.id);
        expect(JSON.parse(r.raw.toString('utf8'))).toMatchObject({ id: d.job_id, event: 'generation.completed' });
      }
      // Outcomes as the receiver decided them.
      expect({ label, status: d.status }).toEqual({ label, status: group === 'fail3' ? 'failed' : 'succeeded' });
      if (group === 'fail3') expect(d.attempts_made).toBe(3);
      if (group === 'ok1') expect(sent).toHaveLength(1);
      // No retry before its time: 2 s / 6 s after the previous answer, or after the lease of an
      // interrupted attempt ran out.
      for (let n = 1; n < sent.length; n++) {
        const prev = sent[n - 1]!;
        const prevTry = tries[n - 1];
        if (prevTry?.error_class === 'interrupted') {
          expect(sent[n]!.at).toBeGreaterThanOrEqual(new Date(prevTry.started_at).getTime() + LEASE_MS - 50);
        } else if (prev.answeredAt !== null) {
          expect(sent[n]!.at - prev.answeredAt).toBeGreaterThanOrEqual((n === 1 ? 2_000 : 6_000) - 50);
        }
      }
    }

    // The attempts in flight at the kill: interrupted, counted, and followed by attempt 3 (200).
    for (const id of inFlightAtKill) {
      const tries = allAttempts.filter((a) => a.delivery_id === id);
      expect(tries.map((t) => [t.number, t.error_class])).toEqual([
        [1, 'http_status'],
        [2, 'interrupted'],
        [3, null],
      ]);
      expect(receiver.of(id)).toHaveLength(3);
    }

    // Overdue at restart (due while the process was down, not in flight): sent at once after it.
    const overdue = atKill.filter(
      (d) => d.status === 'pending' && d.next_attempt_at !== null && d.lease_until === null && d.next_attempt_at.getTime() < restartedAt,
    );
    expect(overdue.length).toBeGreaterThan(0);
    for (const d of overdue) {
      const made = attemptsAtKill.filter((a) => a.delivery_id === d.id).length;
      const resumed = receiver.of(d.id)[made];
      expect(resumed).toBeDefined();
      expect(resumed!.at - restartedAt).toBeLessThan(2_500);
    }
  });

  it('makes one delivery of an event seen twice (the same event published again under a new message id)', async () => {
    const [jobId] = await generate('ok1', 1);
    await until('its delivery', () => receiver.forJob(jobId!).length, (n) => n === 1, 20_000);
    const [outbox] = await h.query<{ pattern: string; payload: unknown }>(
      `SELECT pattern, payload FROM generation.outbox WHERE payload->'record'->>'id' = $1`,
      [jobId],
    );
    // A new JetStream message id gets past the stream's de-duplication: only the consumer's own
    // idempotence (the event id) can keep it to one delivery.
    const nc = await h.nats();
    await nc.jetstream().publish(`${h.subjectPrefix}events.${outbox!.pattern}`, JSON.stringify(outbox!.payload), { msgID: randomUUID() });
    const jsm = await nc.jetstreamManager();
    await until(
      'the webhooks consumer to take the copy',
      async () => jsm.consumers.info(h.streamName, 'webhooks-generation_completed'),
      (info) => info.num_pending === 0 && info.num_ack_pending === 0,
      20_000,
    );
    await sleep(500);
    expect(await h.query('SELECT id FROM webhooks.deliveries WHERE job_id = $1', [jobId])).toHaveLength(1);
    expect(receiver.forJob(jobId!)).toHaveLength(1);
  });
});
