import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ApiKeysService, KeyWebhooksService } from '@gen/gateway';
import { ModelDefinitionInput } from '@gen/generation';
import { http } from '@gen/testing';
import { GenerationApiError, GenerationClient, GenerationStreamEvent, verifyWebhook } from '@generation-service/sdk';
import { testModel } from '../support/factories';
import { HoldEngine } from '../support/hold-engine';
import { SDK_TYPES_PATH, sdkTypesFromOpenApi } from '../support/sdk-types';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const heldModel: ModelDefinitionInput = testModel({ id: 'held-audio-1', engine: 'hold', type: 'TEXT_TO_AUDIO', credits: 2, synchronous: false });
const image = { model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' } as const;
const held = (prompt: string) => ({ model: 'held-audio-1', prompt, type: 'TEXT_TO_AUDIO' }) as const;

/** The TypeScript SDK (libs/sdk) against a running standalone: every call, over real HTTP, no mocks of the API. */
describe('TypeScript SDK against standalone', () => {
  let h: StandaloneHarness;
  let account: { accountId: string; key: string; keyId: string };
  let client: GenerationClient;
  const hold = new HoldEngine('hold');

  beforeAll(async () => {
    // One live stream per account, so that wait()'s fallback to polling is one open stream away.
    h = await startStandaloneHarness({ SSE_STREAMS_PER_ACCOUNT: '1' }, { engines: { hold }, models: [heldModel] });
    account = await h.account('pro', 1000);
    client = new GenerationClient({ apiKey: account.key, baseUrl: h.url });
  });
  afterAll(async () => {
    hold.releaseAll();
    await h?.close();
  });

  it("its types are the OpenAPI document's schemas (regenerate with WRITE_SDK_TYPES=1)", async () => {
    const doc = (await http(h.url, 'GET', '/api/v1/openapi.json')).body;
    const generated = sdkTypesFromOpenApi(doc);
    const path = join(__dirname, '..', '..', SDK_TYPES_PATH);
    if (process.env.WRITE_SDK_TYPES === '1') writeFileSync(path, generated);
    // A difference means the API changed: rewrite the file with WRITE_SDK_TYPES=1 (header of the file) and check the SDK still fits.
    expect(readFileSync(path, 'utf8')).toBe(generated);
  });

  it('creates a generation (an idempotency key on every create: a retry charges once), reads it, and lists every page', async () => {
    const first = await client.generations.create(image, { idempotencyKey: 'sdk-e2e-1' });
    expect(first).toMatchObject({ status: 'completed', model: 'pixel-flux-1', output_url: expect.stringContaining('/cdn/') });
    const again = await client.generations.create(image, { idempotencyKey: 'sdk-e2e-1' });
    expect(again.id).toBe(first.id);
    expect(await client.generations.get(first.id)).toMatchObject({ id: first.id, status: 'completed' });

    const other = await h.account('pro', 100);
    const own = new GenerationClient({ apiKey: other.key, baseUrl: h.url });
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await own.generations.create({ ...image, prompt: `page ${i}` })).id);
    const listed: string[] = [];
    for await (const generation of own.generations.list({ limit: 2, type: 'TEXT_TO_IMAGE' })) listed.push(generation.id);
    expect(listed).toEqual([...made].reverse());
    const ledger = [];
    for await (const entry of own.credits.ledger({ limit: 3 })) ledger.push(entry);
    expect(ledger.filter((e) => e.kind === 'capture')).toHaveLength(5);
    expect((await own.credits.get()).available).toBe(100 - 5 * 4);
  });

  it('retries a create whose answer was lost with the same key: one generation, charged once', async () => {
    let lost = 0;
    const flaky = new GenerationClient({
      apiKey: account.key,
      baseUrl: h.url,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (lost++ === 0) throw new TypeError('fetch failed: the connection was reset after the request was sent');
        return response;
      },
    });
    const before = (await client.credits.get()).available;
    const generation = await flaky.generations.create({ ...image, prompt: 'lost answer' });
    expect(lost).toBe(2);
    expect(generation.status).toBe('completed');
    expect((await client.credits.get()).available).toBe(before - 4);
  });

  it('honours Retry-After on a 503, and gives up on a non-retryable error at once', async () => {
    const calls: number[] = [];
    const busy = new GenerationClient({
      apiKey: account.key,
      baseUrl: h.url,
      fetch: async (input, init) => {
        calls.push(Date.now());
        if (calls.length === 1) {
          return new Response(JSON.stringify({ error: { code: 'service_unavailable', status: 503, message: 'busy', request_id: 'r1' } }), {
            status: 503,
            headers: { 'retry-after': '1', 'content-type': 'application/json' },
          });
        }
        return fetch(input, init);
      },
    });
    await expect(busy.credits.get()).resolves.toMatchObject({ plan: 'pro' });
    expect(calls[1] - calls[0]).toBeGreaterThanOrEqual(1000);

    calls.length = 0;
    const error = await busy.generations.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(calls).toHaveLength(2); // the 503 above, then the 404 once
    expect(error).toBeInstanceOf(GenerationApiError);
    expect(error).toMatchObject({ code: 'not_found', status: 404, requestId: expect.any(String) });
  });

  it('errors are GenerationApiError with the envelope: code, status, message, requestId', async () => {
    const anonymous = new GenerationClient({ apiKey: 'gsk_live_nope', baseUrl: h.url });
    await expect(anonymous.models.list()).rejects.toMatchObject({ name: 'GenerationApiError', code: 'unauthorized', status: 401, requestId: expect.any(String) });
    const invalid = await client.generations.create({ ...image, model: 'fox-9' }).catch((e: GenerationApiError) => e);
    expect(invalid).toMatchObject({ code: 'validation_error', status: 422, message: expect.stringContaining('unknown model') });
    const unreachable = new GenerationClient({ apiKey: account.key, baseUrl: 'http://127.0.0.1:9', maxRetries: 1 });
    await expect(unreachable.credits.get()).rejects.toMatchObject({ code: 'connection_error', status: 0 });
  });

  it('lists models, reads one, and reads credits', async () => {
    const models = await client.models.list();
    expect(models.find((m) => m.id === 'pixel-flux-1')).toMatchObject({ type: 'TEXT_TO_IMAGE', available: true });
    const one = await client.models.get('pixel-flux-1');
    expect(one).toMatchObject({ id: 'pixel-flux-1', type: 'TEXT_TO_IMAGE', inputs: { type: 'object' } });
    await expect(client.models.get('no-such-model')).rejects.toMatchObject({ name: 'GenerationApiError', status: 404 });
    expect(await client.credits.get()).toMatchObject({ plan: 'pro', limits: { parallel_tasks: expect.any(Number) } });
  });

  it('streams a generation live until it finishes, and waits for one (SSE)', async () => {
    const job = await client.generations.create(held('streamed'), { idempotencyKey: `stream-${Date.now()}` });
    expect(['queued', 'processing']).toContain(job.status);
    await hold.startedJob(job.id);
    const seen: GenerationStreamEvent[] = [];
    const streaming = (async () => {
      for await (const event of client.generations.stream(job.id)) {
        seen.push(event);
        if (event.event === 'processing') hold.release(job.id);
      }
    })();
    await streaming;
    expect(seen.map((e) => e.event)).toEqual(['processing', 'completed']);
    expect(seen[1].data).toMatchObject({ id: job.id, status: 'completed', credits_charged: 2 });

    const next = await client.generations.create(held('waited'));
    setTimeout(() => hold.release(next.id), 300);
    expect(await client.generations.wait(next.id, { timeoutMs: 20_000 })).toMatchObject({ id: next.id, status: 'completed' });
  });

  it('resumes a dropped stream with Last-Event-ID: the server does not resend the record it had, nothing is yielded twice', async () => {
    const job = await client.generations.create(held('dropped stream'));
    await hold.startedJob(job.id);
    const streams: Array<{ lastEventId: string | null; text: string }> = [];
    const dropping = new GenerationClient({
      apiKey: account.key,
      baseUrl: h.url,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (!String(input).endsWith('/events') || !response.body) return response;
        const seen = { lastEventId: new Headers(init?.headers).get('last-event-id'), text: '' };
        streams.push(seen);
        const first = streams.length === 1;
        const decoder = new TextDecoder();
        // The first connection drops once it has carried an event (a proxy timing out, a network change).
        const body = response.body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              seen.text += decoder.decode(chunk, { stream: true });
              controller.enqueue(chunk);
              if (first && seen.text.includes('event: processing')) controller.error(new TypeError('terminated'));
            },
          }),
        );
        return new Response(body, { status: response.status, headers: response.headers });
      },
    });
    const seen: GenerationStreamEvent[] = [];
    for await (const event of dropping.generations.stream(job.id)) {
      seen.push(event);
      if (streams.length === 2) hold.release(job.id);
      else setTimeout(() => hold.release(job.id), 3_500); // after the reconnect (the server's retry: 3000)
    }
    expect(seen.map((e) => e.event)).toEqual(['processing', 'completed']);
    expect(streams).toHaveLength(2);
    expect(streams[0].lastEventId).toBeNull();
    expect(streams[1].lastEventId).toBe(seen[0].id);
    expect(streams[1].text).not.toContain('event: processing');
  });

  it('wait() falls back to polling when the live stream is refused (the stream limit), and times out with code timeout', async () => {
    const blocker = await client.generations.create(held('holds the only stream'));
    const controller = new AbortController();
    const open = client.generations.stream(blocker.id, { signal: controller.signal });
    await open.next(); // the only stream this account may hold is now open
    const noRetry = new GenerationClient({ apiKey: account.key, baseUrl: h.url, maxRetries: 0 });
    const job = await noRetry.generations.create(held('polled'));
    setTimeout(() => hold.release(job.id), 700);
    expect(await noRetry.generations.wait(job.id, { timeoutMs: 20_000, pollIntervalMs: 100 })).toMatchObject({ status: 'completed' });

    const slow = await noRetry.generations.create(held('never released'));
    await expect(noRetry.generations.wait(slow.id, { timeoutMs: 500, pollIntervalMs: 100 })).rejects.toMatchObject({ code: 'timeout', status: 0 });
    controller.abort();
    await open.return(undefined);
    hold.release(blocker.id);
    hold.release(slow.id);
  });

  it('uploads a file for a media input (sent as it is, with its type); a refused one is the envelope; never retried', async () => {
    // A PNG as far as the service's sniffing goes: the signature, then bytes.
    const png = new Uint8Array(512).fill(7);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const upload = await client.uploads.create(png, { contentType: 'image/png' });
    expect(upload).toMatchObject({ id: expect.stringMatching(/^upl_[0-9a-f]{24}$/), content_type: 'image/png', bytes: 512, url: expect.stringContaining('/cdn/') });
    expect(new Uint8Array(await (await fetch(upload.url)).arrayBuffer())).toEqual(png);
    await expect(client.uploads.create(png, { contentType: 'image/jpeg' })).rejects.toMatchObject({ code: 'validation_error', status: 422 });

    let calls = 0;
    const busy = new GenerationClient({
      apiKey: account.key,
      baseUrl: h.url,
      fetch: async () => {
        calls++;
        return new Response(JSON.stringify({ error: { code: 'service_unavailable', status: 503, message: 'busy' } }), { status: 503, headers: { 'retry-after': '0' } });
      },
    });
    await expect(busy.uploads.create(png, { contentType: 'image/png' })).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(1); // a repeat would store the file twice
  });

  it('cancels a running generation: failed, refunded; 409 once finished', async () => {
    const job = await client.generations.create(held('to cancel'), { cancelAfter: '1h' });
    await hold.startedJob(job.id);
    const canceled = await client.generations.cancel(job.id);
    expect(canceled).toMatchObject({ status: 'failed', credits_charged: 0, canceled_at: expect.any(String) });
    const done = await client.generations.create({ ...image, prompt: 'finished' });
    await expect(client.generations.cancel(done.id)).rejects.toMatchObject({ code: 'conflict', status: 409 });
  });

  it("verifies the service's live deliveries on both schemes with verifyWebhook", async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const hooked = await h.account('pro', 100);
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const { webhookSecret } = await h.running.app.get(KeyWebhooksService).setUrl(hooked.accountId, hooked.keyId, url);
      const secret = webhookSecret as string;
      const hookedClient = new GenerationClient({ apiKey: hooked.key, baseUrl: h.url });
      const next = async (prompt: string) => {
        const before = received.length;
        const generation = await hookedClient.generations.create({ ...image, prompt });
        for (let i = 0; i < 100 && received.length === before; i++) await new Promise((r) => setTimeout(r, 50));
        return { generation, request: received[before] };
      };

      const service = await next('signed the spec way');
      const verified = await verifyWebhook({ payload: service.request.body, headers: service.request.headers, secret });
      expect(verified).toMatchObject({ scheme: 'service', deliveryId: expect.stringMatching(/^wh_/), test: false });
      expect(verified.event).toMatchObject({ event: 'generation.completed', id: service.generation.id });
      await expect(verifyWebhook({ payload: service.request.body, headers: service.request.headers, secret: 'whsec_wrong' })).rejects.toMatchObject({
        reason: 'signature_mismatch',
      });

      await h.running.app.get(ApiKeysService).setWebhookScheme(hooked.accountId, hooked.keyId, 'standard');
      const standard = await next('signed the standard way');
      const verifiedStandard = await verifyWebhook({ payload: standard.request.body, headers: standard.request.headers, secret });
      expect(verifiedStandard).toMatchObject({ scheme: 'standard', deliveryId: standard.request.headers['webhook-id'] });
      expect(verifiedStandard.event.id).toBe(standard.generation.id);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
