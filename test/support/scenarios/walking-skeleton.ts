import { PNG } from 'pngjs';
import type { PlanName } from '@gen/contracts';
import { eventually as poll, http, HttpResult } from '@gen/testing';

/** A running deployment, as the walking-skeleton scenario drives it: standalone or distributed. */
export interface SkeletonTarget {
  /** The gateway's base URL. */
  url: string;
  /** Creates an account with a plan and credits and returns a live key for it. */
  account(plan?: PlanName, credits?: number): Promise<{ accountId: string; key: string; keyId: string }>;
  /** Revokes a key the way this mode's operator would. */
  revokeKey(account: { accountId: string; keyId: string }): Promise<void>;
  /** SQL on the deployment's database (the four services' schemas). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * The thin slice through the real architecture, driven over HTTP as a client would: the same
 * scenario in both modes (test/e2e/walking-skeleton.e2e-spec.ts for standalone,
 * test/distributed/walking-skeleton.dist-spec.ts for the four apps as processes over NATS).
 * Effects that cross services are awaited with `eventually`: in distributed mode they are.
 */
export function walkingSkeleton(mode: string, start: () => Promise<SkeletonTarget>): void {
  describe(`${mode}: generate and read back`, () => {
    let t: SkeletonTarget;
    let key: string;
    let otherKey: string;

    beforeAll(async () => {
      t = await start();
      ({ key } = await t.account('pro', 1000));
      ({ key: otherKey } = await t.account('pro', 1000));
    });
    afterAll(() => t?.close());

    const expectEnvelope = (res: HttpResult, status: number, code: string) => {
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: { code, status, message: expect.any(String), request_id: expect.any(String) } });
      expect(res.body.error.message.length).toBeGreaterThan(0);
      expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
    };

    // Effects that cross services are eventual (in distributed mode, other processes): up to 15 s.
    const eventually = <T>(read: () => Promise<T>, done: (value: T) => boolean) => poll(read, done, 15_000, 100);
    const generate = (k: string, body: unknown) => http(t.url, 'POST', '/api/v1/generate', { key: k, body });
    const read = async (k: string, id: string) => (await http(t.url, 'GET', `/api/v1/generations/${id}`, { key: k })).body;
    const credits = async (k: string) => (await http(t.url, 'GET', '/api/v1/credits', { key: k })).body;

    it('generates a PNG synchronously, serves it from the storage and reads it back', async () => {
      const res = await generate(key, { model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' });
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBe(`/api/v1/generations/${res.body.id}`);
      expect(res.headers.get('x-request-id')).toMatch(/.+/);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'completed',
        type: 'TEXT_TO_IMAGE',
        model: 'pixel-flux-1',
        credits_charged: 4,
        error: null,
      });
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
      expect(new Date(res.body.completed_at).toISOString()).toBe(res.body.completed_at);
      expect(res.body.output_url.startsWith(`${t.url}/cdn/`)).toBe(true);

      // Written by the generation service, served by the gateway (two processes sharing the storage when distributed).
      const asset = await fetch(res.body.output_url);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toBe('image/png');
      expect(asset.headers.get('cache-control')).toContain('immutable');
      const png = PNG.sync.read(Buffer.from(await asset.arrayBuffer()));
      expect([png.width, png.height]).toEqual([512, 512]);

      const again = await http(t.url, 'GET', `/api/v1/generations/${res.body.id}`, { key });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res.body);
    });

    it('answers 202 with Location for an asynchronous model, and polling finishes it', async () => {
      const res = await generate(key, { model: 'tone-weaver-1', prompt: 'rain on a tin roof', type: 'TEXT_TO_AUDIO' });
      expect(res.status).toBe(202);
      expect(res.headers.get('location')).toBe(`/api/v1/generations/${res.body.id}`);
      expect(['queued', 'processing', 'completed']).toContain(res.body.status);
      const record = await eventually(() => read(key, res.body.id), (r) => r.status === 'completed');
      expect(record.status).toBe('completed');
      expect(record.credits_charged).toBe(10);
    });

    it('captures the price in billing (via the completion event): held back to 0, available down by exactly the price', async () => {
      const account = await t.account('pro', 100);
      expect(await credits(account.key)).toMatchObject({ available: 100, held: 0 });

      const image = await generate(account.key, { model: 'pixel-flux-1', prompt: 'a red kite', type: 'TEXT_TO_IMAGE' });
      expect(image.status).toBe(200);
      expect(await eventually(() => credits(account.key), (c) => c.held === 0)).toMatchObject({ available: 96, held: 0 });

      const audio = await generate(account.key, { model: 'tone-weaver-1', prompt: 'a bell', type: 'TEXT_TO_AUDIO' });
      expect(audio.status).toBe(202);
      await eventually(() => read(account.key, audio.body.id), (r) => r.status === 'completed');
      expect(await eventually(() => credits(account.key), (c) => c.held === 0)).toMatchObject({ available: 86, held: 0 });

      // Each job was captured exactly once, by the billing service.
      const holds = await t.query<{ job_id: string; amount: number; status: string }>(
        `SELECT job_id, amount, status FROM billing.holds WHERE account_id = $1 ORDER BY amount`,
        [account.accountId],
      );
      expect(holds).toEqual([
        { job_id: image.body.id, amount: 4, status: 'captured' },
        { job_id: audio.body.id, amount: 10, status: 'captured' },
      ]);
    });

    it("hides other accounts' generations and unknown ids behind 404 not_found", async () => {
      const mine = await generate(key, { model: 'pixel-flux-1', prompt: 'mine', type: 'TEXT_TO_IMAGE' });
      expect(mine.status).toBe(200);
      expectEnvelope(await http(t.url, 'GET', `/api/v1/generations/${mine.body.id}`, { key: otherKey }), 404, 'not_found');
      expectEnvelope(await http(t.url, 'GET', '/api/v1/generations/00000000-0000-4000-8000-000000000000', { key }), 404, 'not_found');
      expectEnvelope(await http(t.url, 'GET', '/api/v1/generations/not-a-uuid', { key }), 404, 'not_found');
    });

    it.each([
      ['missing header', undefined],
      ['not a bearer', 'Basic abc'],
      ['malformed key', 'Bearer nope'],
      ['unknown key', 'Bearer gsk_live_' + 'A'.repeat(32)],
    ])('401 unauthorized: %s', async (_label, authorization) => {
      expectEnvelope(await http(t.url, 'GET', '/api/v1/models', { headers: authorization ? { authorization } : {} }), 401, 'unauthorized');
    });

    it('401 for a revoked key, at once', async () => {
      const account = await t.account('free', 10);
      expect((await http(t.url, 'GET', '/api/v1/models', { key: account.key })).status).toBe(200);
      await t.revokeKey(account);
      expectEnvelope(await http(t.url, 'GET', '/api/v1/models', { key: account.key }), 401, 'unauthorized');
    });

    const valid = { model: 'pixel-flux-1', prompt: 'ok', type: 'TEXT_TO_IMAGE' };
    it.each([
      ['missing model', { prompt: 'x', type: 'TEXT_TO_IMAGE' }, 'model'],
      ['missing prompt', { model: 'pixel-flux-1', type: 'TEXT_TO_IMAGE' }, 'prompt'],
      ['missing type', { model: 'pixel-flux-1', prompt: 'x' }, 'type'],
      ['extra field', { ...valid, seed: 3 }, 'seed'],
      ['wrong-typed prompt', { ...valid, prompt: 42 }, 'prompt'],
      ['unknown type', { ...valid, type: 'TEXT_TO_SMELL' }, 'type'],
      ['unknown model', { ...valid, model: 'nope-1' }, 'model'],
      ['model/type mismatch', { ...valid, type: 'TEXT_TO_VIDEO' }, 'type'],
      ['empty prompt', { ...valid, prompt: '   ' }, 'prompt'],
      ['prompt too long', { ...valid, prompt: 'x'.repeat(4001) }, 'prompt'],
      ['bad webhook_url', { ...valid, webhook_url: 'not a url' }, 'webhook_url'],
    ])('422 validation_error naming the field: %s', async (_label, body, field) => {
      const before = await credits(key);
      const res = await generate(key, body);
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toContain(field);
      expect((await credits(key)).available).toBe(before.available);
    });

    it('402 insufficient_credits names the minimum, and creates nothing', async () => {
      const poor = await t.account('pro', 3);
      const res = await generate(poor.key, valid);
      expectEnvelope(res, 402, 'insufficient_credits');
      expect(res.body.error.message).toContain('at least 4');
      expect((await http(t.url, 'GET', '/api/v1/generations', { key: poor.key })).body.data).toEqual([]);
      expect(await credits(poor.key)).toMatchObject({ available: 3, held: 0 });
      expect(await t.query('SELECT id FROM generation.jobs WHERE account_id = $1', [poor.accountId])).toEqual([]);
    });

    it('403 forbidden for a model above the plan', async () => {
      const free = await t.account('free', 100);
      expectEnvelope(await generate(free.key, { model: 'pixel-flux-1-hd', prompt: 'x', type: 'TEXT_TO_IMAGE' }), 403, 'forbidden');
    });

    it('lists the catalogue with type, credits and sync flag', async () => {
      const res = await http(t.url, 'GET', '/api/v1/models', { key });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: 'pixel-flux-1', type: 'TEXT_TO_IMAGE', credits: 4, synchronous: true, available: true }),
        ]),
      );
    });

    describe('the envelope on every error path', () => {
      it('unknown route', async () => {
        expectEnvelope(await http(t.url, 'GET', '/api/v1/nope', { key }), 404, 'not_found');
        expectEnvelope(await http(t.url, 'DELETE', '/api/v1/generate', { key }), 405, 'method_not_allowed');
      });
      it('malformed JSON', async () => {
        const res = await http(t.url, 'POST', '/api/v1/generate', { key, rawBody: '{"model": ', headers: { 'content-type': 'application/json' } });
        expectEnvelope(res, 400, 'bad_request');
      });
      it('wrong content type', async () => {
        const res = await http(t.url, 'POST', '/api/v1/generate', {
          key,
          rawBody: 'model=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expectEnvelope(res, 415, 'unsupported_media_type');
      });
      it('oversized body', async () => {
        expectEnvelope(await generate(key, { ...valid, prompt: 'x'.repeat(100 * 1024) }), 413, 'payload_too_large');
      });
      it('a JSON array body', async () => {
        expectEnvelope(await generate(key, [valid]), 422, 'validation_error');
      });
      it('echoes a safe X-Request-Id and replaces an unsafe one', async () => {
        const ok = await http(t.url, 'GET', '/api/v1/models', { key, headers: { 'x-request-id': 'trace-123' } });
        expect(ok.headers.get('x-request-id')).toBe('trace-123');
        const bad = await http(t.url, 'GET', '/api/v1/models', { key, headers: { 'x-request-id': 'a b<script>' } });
        expect(bad.headers.get('x-request-id')).not.toBe('a b<script>');
      });
    });
  });
}
