import { createHmac } from 'node:crypto';
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import type { LoggerService } from '@nestjs/common';
import {
  ListWebhookDeliveriesReply,
  RedeliverWebhookReply,
  Subjects,
  WebhookDeliveryView,
} from '@gen/contracts';
import { DomainError } from '@gen/errors';
import { CATALOGUE, EngineError, ModelDefinitionInput } from '@gen/generation';
import { http } from '@gen/testing';
import { RpcClient } from '@gen/transport';
import { verify } from '@gen/webhook-signature';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/**
 * The spec's Events section, end to end: a real generation, the in-process events, the dispatcher,
 * and a local receiver that records exactly what arrives on the wire.
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** Epoch ms when the request's body had fully arrived. */
  at: number;
}

/** Answers a request; `n` is 1 for the first request to that path, 2 for the second... */
type Behaviour = (n: number, req: IncomingMessage, res: ServerResponse) => void;

class Receiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private server!: Server;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        this.received.push({ path, headers: req.headers, raw: Buffer.concat(chunks), at: Date.now() });
        const n = this.at(path).length;
        (this.behaviours.get(path) ?? ((_n, _q, r) => r.writeHead(200).end('ok')))(n, req, res);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  on(path: string, behaviour: Behaviour): string {
    this.behaviours.set(path, behaviour);
    return `${this.base}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async waitFor(path: string, count: number, timeoutMs = 15_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < count) {
      if (Date.now() > deadline) throw new Error(`${path}: ${this.at(path).length} of ${count} requests after ${timeoutMs} ms`);
      await sleep(10);
    }
    return this.at(path);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps warnings and errors, to check the give-up line and that no secret is ever logged. */
class CapturingLogger implements LoggerService {
  readonly lines: Array<{ level: string; message: unknown; rest: unknown[] }> = [];
  log(): void {}
  debug(): void {}
  verbose(): void {}
  warn(message: unknown, ...rest: unknown[]): void {
    this.lines.push({ level: 'warn', message, rest });
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.lines.push({ level: 'error', message, rest });
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.lines.push({ level: 'fatal', message, rest });
  }
}

/** The spec's fields in the spec's order, then the ones added since (docs/guide/compatibility.md). */
const BODY_FIELDS = ['event', 'id', 'status', 'type', 'model', 'output_url', 'credits_charged', 'error', 'created_at', 'completed_at', 'outputs', 'input', 'metadata'];
const FAILURE_MESSAGE = 'The model could not render this prompt. Your credits were refunded.';
/** Renders nothing heavy: the timing tests must not share the event loop with PNG encoding. */
const INSTANT_MODEL: ModelDefinitionInput = testModel({ id: 'instant-1', name: 'Instant 1 (tiny output)', engine: 'instant' });
const BROKEN_MODEL: ModelDefinitionInput = testModel({ id: 'broken-flux-1', name: 'Broken Flux 1 (always fails)', engine: 'broken', credits: 4 });

/** Finishes only when the test opens its gate: time to change a key between submit and the event. */
const GATED_MODEL: ModelDefinitionInput = testModel({ id: 'gated-1', name: 'Gated 1 (finishes when the test says)', engine: 'gated', synchronous: false });

describe('webhooks (standalone): one signed POST per finished generation', () => {
  const gate: { open: () => void; opened: Promise<void> } = (() => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  })();
  let h: StandaloneHarness;
  const receiver = new Receiver();
  const logger = new CapturingLogger();
  const secrets: string[] = [];
  let counter = 0;

  beforeAll(async () => {
    await receiver.start();
    h = await startStandaloneHarness(
      {},
      {
        logger,
        models: [...CATALOGUE, INSTANT_MODEL, BROKEN_MODEL, GATED_MODEL],
        engines: {
          gated: {
            name: 'gated',
            generate: async () => {
              await gate.opened;
              return [{ data: Buffer.from('not really a png'), contentType: 'image/png', extension: 'png' }];
            },
          },
          instant: {
            name: 'instant',
            generate: async () => [{ data: Buffer.from('not really a png'), contentType: 'image/png', extension: 'png' }],
          },
          broken: {
            name: 'broken',
            generate: async () => {
              throw new EngineError(FAILURE_MESSAGE);
            },
          },
        },
      },
    );
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await receiver.stop();
  });

  /** An account whose key has the given default webhook URL and signing secret (set as the dashboard would). */
  async function keyWith(url: string | null, secret: string | null = `whsec_e2e${++counter}x${Math.random().toString(36).slice(2)}`) {
    const account = await h.account('pro', 1000);
    await setKeyWebhook(account.keyId, url, secret);
    if (secret) secrets.push(secret);
    return { ...account, secret: secret as string };
  }

  async function setKeyWebhook(keyId: string, url: string | null, secret: string | null): Promise<void> {
    await h.running.databases.auth.query(`UPDATE api_keys SET webhook_url = $2, webhook_secret = $3 WHERE id = $1`, [keyId, url, secret]);
  }

  async function generate(key: string, body: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const res = await http(h.url, 'POST', '/api/v1/generate', {
      key,
      body: { model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE', ...body },
    });
    expect(res.status).toBe(200);
    return res.body as Record<string, unknown>;
  }

  async function deliveriesOf(jobId: string) {
    return h.running.databases.webhooks.query(
      `SELECT id, status, attempts_made, url, body FROM deliveries WHERE job_id = $1 ORDER BY created_at`,
      [jobId],
    ) as Promise<Array<{ id: string; status: string; attempts_made: number; url: string; body: Buffer }>>;
  }

  async function attemptsOf(deliveryId: string) {
    return h.running.databases.webhooks.query(
      `SELECT number, started_at, duration_ms, status_code, error_class, error FROM attempts WHERE delivery_id = $1 ORDER BY number`,
      [deliveryId],
    ) as Promise<
      Array<{ number: number; started_at: Date; duration_ms: number; status_code: number | null; error_class: string | null; error: string | null }>
    >;
  }

  /** The attempt after `prev` started `delay` ms after `prev` ended, within 100 ms (as its rows record it). */
  function expectRetryOnSchedule(prev: { started_at: Date; duration_ms: number }, next: { started_at: Date }, delay: number) {
    const due = new Date(prev.started_at).getTime() + prev.duration_ms + delay;
    const error = new Date(next.started_at).getTime() - due;
    expect(error).toBeGreaterThanOrEqual(-15);
    expect(error).toBeLessThan(100);
  }

  async function waitForStatus(jobId: string, status: string, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [d] = await deliveriesOf(jobId);
      if (d && d.status === status) return d;
      if (Date.now() > deadline) throw new Error(`delivery of ${jobId} is ${d?.status ?? 'missing'}, not ${status}`);
      await sleep(25);
    }
  }

  /** Until the generation's event has gone through every consumer (the in-process publish awaits them all). */
  async function waitForEventPublished(jobId: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const rows = await h.running.databases.generation.query(
        `SELECT 1 FROM outbox WHERE payload->'record'->>'id' = $1 AND published_at IS NOT NULL`,
        [jobId],
      );
      if (rows.length > 0) return;
      if (Date.now() > deadline) throw new Error(`event of ${jobId} not published`);
      await sleep(25);
    }
  }

  const hmac = (secret: string, r: Received) =>
    'sha256=' + createHmac('sha256', secret).update(`${r.headers['x-service-timestamp'] as string}.`).update(r.raw).digest('hex');

  function expectSpecHeaders(r: Received, event: string, secret: string): void {
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('Service-Webhook/1.0');
    expect(r.headers['x-service-event']).toBe(event);
    expect(r.headers['x-service-timestamp']).toMatch(/^[0-9]+$/);
    expect(Math.abs(Number(r.headers['x-service-timestamp']) - r.at / 1000)).toBeLessThan(3);
    expect(r.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(r.headers['x-service-signature']).toBe(hmac(secret, r));
    expect(r.headers['x-service-delivery-id']).toMatch(/^wh_[0-9A-Za-z]{20,}$/);
    // Nothing else of ours on the wire.
    expect(Object.keys(r.headers).filter((name) => name.startsWith('x-')).sort()).toEqual([
      'x-service-delivery-id',
      'x-service-event',
      'x-service-signature',
      'x-service-timestamp',
    ]);
    // The receiver library accepts it, over the raw bytes.
    expect(verify(r.raw, r.headers, secret)).toMatchObject({ deliveryId: r.headers['x-service-delivery-id'], event });
  }

  it('generation.completed: exact headers, a signature over the raw body, the spec fields in order, then outputs, input and metadata', async () => {
    const k = await keyWith(receiver.on('/completed', (_n, _q, res) => res.writeHead(204).end()));
    const record = await generate(k.key);
    const [r] = await receiver.waitFor('/completed', 1);
    expectSpecHeaders(r!, 'generation.completed', k.secret);

    const body = JSON.parse(r!.raw.toString('utf8'));
    expect(Object.keys(body)).toEqual(BODY_FIELDS);
    const read = (await http(h.url, 'GET', `/api/v1/generations/${record.id as string}`, { key: k.key })).body;
    expect(body).toEqual({
      event: 'generation.completed',
      id: read.id,
      status: 'completed',
      type: 'TEXT_TO_IMAGE',
      model: 'pixel-flux-1',
      output_url: read.output_url,
      credits_charged: 4,
      error: null,
      created_at: read.created_at,
      completed_at: read.completed_at,
      outputs: read.outputs,
      input: {},
      metadata: {},
    });
    expect(body.outputs).toEqual([{ url: read.output_url, content_type: 'image/png', bytes: expect.any(Number), width: 512, height: 512 }]);
    expect(body.output_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cdn\//);

    const delivery = await waitForStatus(record.id as string, 'succeeded');
    expect(delivery).toMatchObject({ id: r!.headers['x-service-delivery-id'], attempts_made: 1 });
    expect(delivery.body.equals(r!.raw)).toBe(true);
    expect(await attemptsOf(delivery.id)).toMatchObject([{ number: 1, status_code: 204, error_class: null }]);
  });

  it('an event seen twice makes one delivery and one POST', async () => {
    const k = await keyWith(receiver.on('/twice', (_n, _q, res) => res.writeHead(200).end()));
    const record = await generate(k.key);
    await receiver.waitFor('/twice', 1);
    await waitForEventPublished(record.id as string);
    // Replay the very same event (same event id) through the outbox relay, as a redelivery by NATS would.
    await h.running.databases.generation.query(`UPDATE outbox SET published_at = NULL WHERE payload->'record'->>'id' = $1`, [record.id]);
    await waitForEventPublished(record.id as string);
    await sleep(300);
    expect(await deliveriesOf(record.id as string)).toHaveLength(1);
    expect(receiver.at('/twice')).toHaveLength(1);
  });

  it('webhook_url on the request overrides the key default for that generation', async () => {
    const k = await keyWith(receiver.on('/default', (_n, _q, res) => res.writeHead(200).end()));
    const record = await generate(k.key, { webhook_url: receiver.on('/override', (_n, _q, res) => res.writeHead(200).end()) });
    const [r] = await receiver.waitFor('/override', 1);
    expect(JSON.parse(r!.raw.toString()).id).toBe(record.id);
    expectSpecHeaders(r!, 'generation.completed', k.secret);
    await sleep(200);
    expect(receiver.at('/default')).toHaveLength(0);
  });

  it("goes where the key's default URL pointed at submit: a default changed later redirects neither the webhook nor a redelivery", async () => {
    const k = await keyWith(receiver.on('/at-submit', (_n, _q, res) => res.writeHead(200).end()));
    const submitted = await http(h.url, 'POST', '/api/v1/generate', {
      key: k.key,
      body: { model: GATED_MODEL.id, prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' },
    });
    expect(submitted.status).toBe(202);
    const jobId = submitted.body.id as string;
    // The dashboard changes the key's default while the generation runs.
    await setKeyWebhook(k.keyId, receiver.on('/changed-later', (_n, _q, res) => res.writeHead(200).end()), k.secret);
    gate.open();
    const [r] = await receiver.waitFor('/at-submit', 1);
    expect(JSON.parse(r!.raw.toString('utf8')).id).toBe(jobId);
    expectSpecHeaders(r!, 'generation.completed', k.secret);
    await waitForStatus(jobId, 'succeeded');

    // A redelivery resends the generation's event to the generation's destination.
    const again = await http(h.url, 'POST', `/api/v1/generations/${jobId}/redeliver`, { key: k.key });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ url: `${receiver.base}/at-submit` });
    const [, second] = await receiver.waitFor('/at-submit', 2);
    expect(second!.raw.equals(r!.raw)).toBe(true);
    await sleep(200);
    expect(receiver.at('/changed-later')).toHaveLength(0);
  });

  it('422 at submit when the key has a default webhook URL but no signing secret (every delivery is signed), nothing charged', async () => {
    const k = await keyWith(receiver.on('/unsigned', (_n, _q, res) => res.writeHead(200).end()), null);
    const res = await http(h.url, 'POST', '/api/v1/generate', {
      key: k.key,
      body: { model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_error' });
    expect(res.body.error.message).toMatch(/default webhook URL but no webhook signing secret.*Generate one in the dashboard/);
    expect((await http(h.url, 'GET', '/api/v1/credits', { key: k.key })).body).toMatchObject({ available: 1000, held: 0 });
    expect(receiver.at('/unsigned')).toHaveLength(0);
  });

  it('generation.failed: status failed, 0 credits, the sanitised error, no output_url', async () => {
    const k = await keyWith(receiver.on('/failed', (_n, _q, res) => res.writeHead(200).end()));
    const record = await generate(k.key, { model: BROKEN_MODEL.id });
    expect(record.status).toBe('failed');
    const [r] = await receiver.waitFor('/failed', 1);
    expectSpecHeaders(r!, 'generation.failed', k.secret);
    const body = JSON.parse(r!.raw.toString('utf8'));
    expect(Object.keys(body)).toEqual(BODY_FIELDS);
    expect(body).toEqual({
      event: 'generation.failed',
      id: record.id,
      status: 'failed',
      type: 'TEXT_TO_IMAGE',
      model: BROKEN_MODEL.id,
      output_url: null,
      credits_charged: 0,
      error: FAILURE_MESSAGE,
      created_at: record.created_at,
      completed_at: record.completed_at,
      outputs: [],
      input: {},
      metadata: {},
    });
  });

  it('no destination: no delivery, nothing sent, nothing logged as failed', async () => {
    const k = await keyWith(null);
    const record = await generate(k.key);
    await waitForEventPublished(record.id as string);
    expect(await deliveriesOf(record.id as string)).toEqual([]);
  });

  it(
    'retries at +2 s and +6 s after failures, with the same delivery id and body and fresh signatures; ' +
      '3xx, hangs and trickles are failures; a renewed secret signs the next attempt',
    async () => {
      // Five schedules run at once, each on its own key.
      const always500 = await keyWith(receiver.on('/500', (_n, _q, res) => res.writeHead(500).end('nope')));
      const redirect = await keyWith(
        receiver.on('/302', (n, _q, res) => (n === 1 ? res.writeHead(302, { location: '/302-target' }).end() : res.writeHead(200).end())),
      );
      receiver.on('/302-target', (_n, _q, res) => res.writeHead(200).end());
      const hang = await keyWith(receiver.on('/hang', (n, _q, res) => (n === 1 ? undefined : res.writeHead(200).end())));
      const trickle = await keyWith(
        receiver.on('/trickle', (n, _q, res) => {
          if (n > 1) return void res.writeHead(200).end();
          res.writeHead(200, { 'content-type': 'text/plain' });
          const t = setInterval(() => res.write('.'), 500);
          res.on('close', () => clearInterval(t));
        }),
      );
      const renewed = `whsec_renewed${Math.random().toString(36).slice(2)}`;
      secrets.push(renewed);
      let rotation!: typeof always500;
      const rotationUrl = receiver.on('/rotate', (n, _q, res) => {
        if (n > 1) return void res.writeHead(200).end();
        // Renewed between attempt 1 and attempt 2.
        void setKeyWebhook(rotation.keyId, rotationUrl, renewed).then(() => res.writeHead(503).end());
      });
      rotation = await keyWith(rotationUrl);

      const [j500, j302, jHang, jTrickle, jRotate] = await Promise.all(
        [always500, redirect, hang, trickle, rotation].map((k) => generate(k.key, { model: INSTANT_MODEL.id })),
      );
      const [sent500, sent302, sentHang, sentTrickle, sentRotate] = await Promise.all([
        receiver.waitFor('/500', 3, 20_000),
        receiver.waitFor('/302', 2, 20_000),
        receiver.waitFor('/hang', 2, 20_000),
        receiver.waitFor('/trickle', 2, 20_000),
        receiver.waitFor('/rotate', 2, 20_000),
      ]);

      // Always 500: three attempts at ~0 s, ~2 s, ~8 s; one delivery id, identical bytes, new signatures.
      const [a1, a2, a3] = sent500 as [Received, Received, Received];
      expect(a2.at - a1.at).toBeGreaterThanOrEqual(1_950);
      expect(a2.at - a1.at).toBeLessThan(2_300);
      expect(a3.at - a2.at).toBeGreaterThanOrEqual(5_950);
      expect(a3.at - a2.at).toBeLessThan(6_300);
      expect(new Set(sent500.map((r) => r.headers['x-service-delivery-id'])).size).toBe(1);
      expect(a2.raw.equals(a1.raw) && a3.raw.equals(a1.raw)).toBe(true);
      for (const r of sent500) expectSpecHeaders(r, 'generation.completed', always500.secret);
      expect(new Set(sent500.map((r) => r.headers['x-service-signature'])).size).toBe(3);
      expect(Number(a3.headers['x-service-timestamp'])).toBeGreaterThan(Number(a1.headers['x-service-timestamp']));

      const failed = await waitForStatus(j500.id as string, 'failed');
      expect(failed.attempts_made).toBe(3);
      const tries = await attemptsOf(failed.id);
      expect(tries.map((t) => [t.number, t.status_code, t.error_class])).toEqual([
        [1, 500, 'http_status'],
        [2, 500, 'http_status'],
        [3, 500, 'http_status'],
      ]);
      // Start times within 100 ms of the schedule (2 s, then 6 s, after the previous attempt ended).
      expectRetryOnSchedule(tries[0]!, tries[1]!, 2_000);
      expectRetryOnSchedule(tries[1]!, tries[2]!, 6_000);
      const gaveUp = logger.lines.find(
        (l) => l.level === 'warn' && (l.message as { deliveryId?: string } | null)?.deliveryId === failed.id,
      );
      expect(gaveUp?.message).toMatchObject({ msg: 'webhook delivery failed', jobId: j500.id, attempts: 3, lastStatusCode: 500 });

      // 302: a failure, not followed; attempt 2 succeeds and ends it.
      expect(receiver.at('/302-target')).toHaveLength(0);
      expect(sent302[1]!.at - sent302[0]!.at).toBeGreaterThanOrEqual(1_950);
      const d302 = await waitForStatus(j302.id as string, 'succeeded');
      expect((await attemptsOf(d302.id)).map((t) => [t.status_code, t.error_class])).toEqual([
        [302, 'http_status'],
        [200, null],
      ]);

      // Accepts and never answers: fails at 5 s, attempt 2 at +2 s after that. The schedule is checked
      // on the dispatcher's own clock (its recorded attempts): the receiver's arrival times also carry
      // each connection's set-up time, which a loaded machine stretches.
      expect(sentHang[1]!.at - sentHang[0]!.at).toBeLessThan(7_400);
      const dHang = await waitForStatus(jHang.id as string, 'succeeded');
      const hangTries = await attemptsOf(dHang.id);
      expect(hangTries[0]).toMatchObject({ status_code: null, error_class: 'timeout' });
      expect(hangTries[0]!.duration_ms).toBeGreaterThanOrEqual(4_990);
      expect(hangTries[0]!.duration_ms).toBeLessThan(5_300);
      expectRetryOnSchedule(hangTries[0]!, hangTries[1]!, 2_000);

      // Answers 200 but trickles its body: the 5 s cover the whole exchange, so it fails.
      const dTrickle = await waitForStatus(jTrickle.id as string, 'succeeded');
      const trickleTries = await attemptsOf(dTrickle.id);
      expect(trickleTries[0]).toMatchObject({ status_code: 200, error_class: 'timeout' });
      expect(trickleTries[0]!.duration_ms).toBeGreaterThanOrEqual(4_990);
      expectRetryOnSchedule(trickleTries[0]!, trickleTries[1]!, 2_000);
      expect(sentTrickle[1]!.raw.equals(sentTrickle[0]!.raw)).toBe(true);

      // Renewal between attempts: attempt 2 is signed with the new secret only.
      expectSpecHeaders(sentRotate[0]!, 'generation.completed', rotation.secret);
      expectSpecHeaders(sentRotate[1]!, 'generation.completed', renewed);
      expect(sentRotate[1]!.headers['x-service-signature']).not.toBe(hmac(rotation.secret, sentRotate[1]!));
      expect(() => verify(sentRotate[1]!.raw, sentRotate[1]!.headers, rotation.secret)).toThrow(/does not match/);
      expect(sentRotate[1]!.raw.equals(sentRotate[0]!.raw)).toBe(true);
      await waitForStatus(jRotate.id as string, 'succeeded');

      // Nothing more after the last attempt.
      await sleep(1_000);
      expect(receiver.at('/500')).toHaveLength(3);
    },
    40_000,
  );

  describe('delivery log (RPC used by GET /generations/{id}/deliveries and POST .../redeliver)', () => {
    let rpc: RpcClient;
    beforeAll(() => {
      rpc = h.running.app.get(RpcClient);
    });

    it('lists the deliveries and attempts of a generation for its account only, and redelivers', async () => {
      const path = '/log';
      const k = await keyWith(receiver.on(path, (n, _q, res) => res.writeHead(n === 1 ? 500 : 200).end()));
      const record = await generate(k.key);
      await waitForStatus(record.id as string, 'succeeded');

      const list = await rpc.request<ListWebhookDeliveriesReply>(Subjects.webhooksDeliveriesList, {
        accountId: k.accountId,
        jobId: record.id,
      });
      expect(list.data).toHaveLength(1);
      const [first] = list.data as [WebhookDeliveryView];
      expect(first).toMatchObject({
        event: 'generation.completed',
        url: `${receiver.base}${path}`,
        status: 'succeeded',
        attempts_made: 2,
        max_attempts: 3,
        next_attempt_at: null,
        redelivery_of: null,
      });
      expect(first.attempts.map((a) => [a.number, a.outcome, a.status_code, a.error_class])).toEqual([
        [1, 'failed', 500, 'http_status'],
        [2, 'succeeded', 200, null],
      ]);
      const other = await h.account('pro', 10);
      expect(
        (await rpc.request<ListWebhookDeliveriesReply>(Subjects.webhooksDeliveriesList, { accountId: other.accountId, jobId: record.id }))
          .data,
      ).toEqual([]);

      const again = await rpc.request<RedeliverWebhookReply>(Subjects.webhooksRedeliver, { accountId: k.accountId, jobId: record.id });
      // Attempt 1 starts with the insert: in flight when the answer is made, or already done.
      expect(again).toMatchObject({ redelivery_of: first.id, attempts_made: 1, attempts: [expect.objectContaining({ number: 1 })] });
      expect(['pending', 'succeeded']).toContain(again.status);
      expect(again.id).not.toBe(first.id);
      const sent = await receiver.waitFor(path, 3);
      expect(sent[2]!.headers['x-service-delivery-id']).toBe(again.id);
      expect(sent[2]!.raw.equals(sent[0]!.raw)).toBe(true);
      expectSpecHeaders(sent[2]!, 'generation.completed', k.secret);

      await expect(
        rpc.request(Subjects.webhooksRedeliver, { accountId: other.accountId, jobId: record.id }),
      ).rejects.toMatchObject({ code: 'conflict' });
    });

    it('refuses to redeliver a generation that had no destination', async () => {
      const k = await keyWith(null);
      const record = await generate(k.key);
      await waitForEventPublished(record.id as string);
      const error = await rpc
        .request(Subjects.webhooksRedeliver, { accountId: k.accountId, jobId: record.id })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 'conflict' });
    });
  });

  it('never logs a signing secret', () => {
    const logged = JSON.stringify(logger.lines, (_k, v: unknown) => (v instanceof Error ? `${v.name}: ${v.message}` : v));
    for (const secret of secrets) expect(logged).not.toContain(secret);
  });
});
