import { execFile } from 'node:child_process';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { join } from 'node:path';
import OpenAI from 'openai';
import { CATALOGUE, Engine, EngineError, EngineRequest, InstantEngine, ModelDefinitionInput } from '@gen/generation';
import { eventually, http } from '@gen/testing';
import { testModel } from '../support/factories';
import { lintOpenApiDocument, OpenApiDocument, ResponseValidator, validateOpenApiDocument } from '../support/openapi';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** An engine that records the input it is given and answers one tiny image per `num_outputs`. */
class RecordingEngine implements Engine {
  readonly name = 'recording';
  readonly inputs: Array<Readonly<Record<string, unknown>>> = [];
  private readonly instant = new InstantEngine();

  async generate(request: EngineRequest) {
    this.inputs.push(request.input);
    const [image] = await this.instant.generate(request);
    const count = typeof request.input.num_outputs === 'number' ? request.input.num_outputs : 1;
    return Array.from({ length: count }, () => image);
  }
}

/** A provider that refuses every prompt, as generation words a provider's refusal. */
class RefusingEngine implements Engine {
  readonly name = 'refusing';
  generate(): Promise<never> {
    return Promise.reject(new EngineError('The model provider refused this request. Your credits were refunded.'));
  }
}

/** Finishes no job until the test opens it. */
class GatedEngine implements Engine {
  readonly name = 'gated';
  private release!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  private readonly instant = new InstantEngine();

  async generate(request: EngineRequest) {
    await this.opened;
    return this.instant.generate(request);
  }

  open(): void {
    this.release();
  }
}

const SIZED: ModelDefinitionInput = testModel({
  id: 'sized-1',
  engine: 'recording',
  credits: 2,
  inputs: {
    type: 'object',
    properties: {
      num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
      width: { type: 'integer', minimum: 64, maximum: 2048, default: 512 },
      height: { type: 'integer', minimum: 64, maximum: 2048, default: 512 },
      quality: { type: 'string', enum: ['low', 'high'], default: 'low' },
    },
    additionalProperties: false,
  },
  priceMultipliers: ['num_outputs'],
  openai: { n: 'num_outputs', width: 'width', height: 'height', sizes: ['256x256', '1024x768'], quality: 'quality' },
});
const UNMAPPED: ModelDefinitionInput = testModel({ id: 'plain-1', engine: 'recording' });
const REFUSING: ModelDefinitionInput = testModel({ id: 'refusing-1', engine: 'refusing', openai: {} });
const GATED: ModelDefinitionInput = testModel({ id: 'gated-1', engine: 'gated', openai: {} });

describe('OpenAI-compatible images API (standalone, the official openai client)', () => {
  let h: StandaloneHarness;
  const recording = new RecordingEngine();
  const gated = new GatedEngine();
  /** Webhook requests received, by path. */
  const hooks: Array<{ path: string; body: Record<string, unknown> }> = [];
  let receiver: Server;
  let receiverUrl = '';

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hooks.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // A short submit wait, so that a job still running after both waits is seen in seconds.
    h = await startStandaloneHarness(
      { SYNC_WAIT_MS: '1500' },
      { models: [...CATALOGUE, SIZED, UNMAPPED, REFUSING, GATED], engines: { recording, refusing: new RefusingEngine(), gated } },
    );
  });
  afterAll(async () => {
    gated.open();
    await h?.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /** OpenAI's own client, pointed at this service; no retries, so each call is one request. */
  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${h.url}/openai/v1`, maxRetries: 0 });
  /** What the client threw, as an OpenAI.APIError. */
  const failure = async (call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> => {
    const error: unknown = await call.then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return error as InstanceType<typeof OpenAI.APIError>;
  };

  describe('happy path', () => {
    it('generates with response_format url: a real generation, listed, in the ledger, charged', async () => {
      const { key } = await h.account('free', 100);
      const before = Math.floor(Date.now() / 1000);
      const result = await client(key).images.generate({ model: 'pixel-flux-1', prompt: 'a red fox', user: 'end-user-7' });
      expect(result.created).toBeGreaterThanOrEqual(before - 1);
      expect(result.data).toHaveLength(1);
      const url = result.data![0].url!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cdn\/[0-9a-f]{2}\/[0-9a-f]{32}\.png$/);
      const file = await fetch(url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/png');

      const list = await http(h.url, 'GET', '/api/v1/generations', { key });
      expect(list.body.data).toHaveLength(1);
      const [record] = list.body.data;
      expect(record).toMatchObject({ model: 'pixel-flux-1', prompt: 'a red fox', status: 'completed', output_url: url, credits_charged: 4, metadata: { openai_user: 'end-user-7' } });
      const ledger = await http(h.url, 'GET', '/api/v1/credits/ledger', { key });
      expect(ledger.body.data.filter((e: { generation_id: string | null }) => e.generation_id === record.id).length).toBeGreaterThan(0);
      expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body.available).toBe(96);
    });

    it('generates with response_format b64_json: the stored bytes, base64', async () => {
      const { key } = await h.account('free', 100);
      const result = await client(key).images.generate({ model: 'pixel-flux-1', prompt: 'a red fox', response_format: 'b64_json', size: '512x512' });
      expect(result.data).toHaveLength(1);
      expect(result.data![0].url).toBeUndefined();
      const bytes = Buffer.from(result.data![0].b64_json!, 'base64');
      expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
      const [record] = (await http(h.url, 'GET', '/api/v1/generations', { key })).body.data;
      const stored = Buffer.from(await (await fetch(record.output_url)).arrayBuffer());
      expect(bytes.equals(stored)).toBe(true);
    });

    it('maps n, size and quality to the inputs the catalogue names: n=2 makes two images, priced by them', async () => {
      const { key } = await h.account('free', 100);
      const seen = recording.inputs.length;
      const result = await client(key).images.generate({ model: 'sized-1', prompt: 'two foxes', n: 2, size: '1024x768', quality: 'high' });
      expect(result.data).toHaveLength(2);
      expect(new Set(result.data!.map((d) => d.url)).size).toBe(2);
      const applied = { num_outputs: 2, width: 1024, height: 768, quality: 'high' };
      expect(recording.inputs.slice(seen)).toEqual([applied]);
      const [record] = (await http(h.url, 'GET', '/api/v1/generations', { key })).body.data;
      expect(record).toMatchObject({ model: 'sized-1', input: applied, credits_charged: 4 });
    });

    it("with an Idempotency-Key header (the client's headers option), a repeat answers the same generation, charged once", async () => {
      const { key } = await h.account('free', 100);
      const first = await client(key).images.generate({ model: 'pixel-flux-1', prompt: 'once' }, { headers: { 'Idempotency-Key': 'openai-once-1' } });
      const again = await client(key).images.generate({ model: 'pixel-flux-1', prompt: 'once' }, { headers: { 'Idempotency-Key': 'openai-once-1' } });
      expect(again.data![0].url).toBe(first.data![0].url);
      expect((await http(h.url, 'GET', '/api/v1/generations', { key })).body.data).toHaveLength(1);
      expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body.available).toBe(96);
    });

    it('lists the models served (those with a mapping, usable on the plan) in OpenAI\'s shape, and retrieves one', async () => {
      const { key } = await h.account('free', 100);
      const page = await client(key).models.list();
      const ids = page.data.map((m) => m.id).sort();
      // pixel-flux-1-hd is mapped but needs the pro plan; plain-1 has no mapping.
      expect(ids).toEqual(['gated-1', 'pixel-flux-1', 'refusing-1', 'sized-1']);
      const raw = await http(h.url, 'GET', '/openai/v1/models', { key });
      expect(raw.body.object).toBe('list');
      expect(raw.body.data).toContainEqual({ id: 'pixel-flux-1', object: 'model', created: 0, owned_by: 'demo' });
      expect(await client(key).models.retrieve('sized-1')).toMatchObject({ id: 'sized-1', object: 'model' });
      // /api/v1 keeps its documented model fields: the mapping is not among them.
      expect((await http(h.url, 'GET', '/api/v1/models/pixel-flux-1', { key })).body).not.toHaveProperty('openai');
      expect(((await http(h.url, 'GET', '/api/v1/models', { key })).body.data as Array<Record<string, unknown>>).some((m) => 'openai' in m)).toBe(false);
      const pro = await h.account('pro', 100);
      expect((await client(pro.key).models.list()).data.map((m) => m.id)).toContain('pixel-flux-1-hd');
    });
  });

  it("sends the key's webhook for the generation, as POST /api/v1/generate does", async () => {
    const { key, keyId } = await h.account('free', 100);
    await h.running.databases.auth.query(`UPDATE api_keys SET webhook_url = $2, webhook_secret = $3 WHERE id = $1`, [keyId, `${receiverUrl}/hook`, 'whsec_openaie2e1x' + Math.random().toString(36).slice(2)]);
    await client(key).images.generate({ model: 'pixel-flux-1', prompt: 'a hooked fox' });
    const [record] = (await http(h.url, 'GET', '/api/v1/generations', { key })).body.data;
    const delivered = await eventually(async () => hooks.filter((hook) => hook.path === '/hook' && JSON.stringify(hook.body).includes(record.id)), (found) => found.length > 0);
    expect(delivered).toHaveLength(1);
    expect(JSON.stringify(delivered[0].body)).toContain('generation.completed');
  });

  describe('errors, in OpenAI\'s shape and statuses', () => {
    const shape = (body: unknown, fields: { type: string; code: string | null; param?: string | null }) =>
      expect(body).toEqual({ error: { message: expect.any(String), type: fields.type, code: fields.code, param: fields.param ?? null } });

    it('an unknown model is 404 model_not_found; an unmapped one 400 saying so; nothing is charged', async () => {
      const { key } = await h.account('free', 100);
      const unknown = await failure(client(key).images.generate({ model: 'no-such-model', prompt: 'x' }));
      expect(unknown.status).toBe(404);
      shape({ error: unknown.error }, { type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
      const unmapped = await failure(client(key).images.generate({ model: 'plain-1', prompt: 'x' }));
      expect(unmapped.status).toBe(400);
      shape({ error: unmapped.error }, { type: 'invalid_request_error', code: 'model_not_supported', param: 'model' });
      expect(unmapped.message).toMatch(/not served by the OpenAI-compatible API/);
      expect((await http(h.url, 'GET', '/api/v1/generations', { key })).body.data).toEqual([]);
      expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body.available).toBe(100);
    });

    it('a size, n or quality the model does not take is 400 invalid_request_error naming the param', async () => {
      const { key } = await h.account('free', 100);
      const size = await failure(client(key).images.generate({ model: 'pixel-flux-1', prompt: 'x', size: '1024x1024' }));
      expect(size.status).toBe(400);
      shape({ error: size.error }, { type: 'invalid_request_error', code: 'invalid_value', param: 'size' });
      expect(size.message).toMatch(/512x512/);
      const n = await failure(client(key).images.generate({ model: 'pixel-flux-1', prompt: 'x', n: 2 }));
      shape({ error: n.error }, { type: 'invalid_request_error', code: 'invalid_value', param: 'n' });
      const tooMany = await failure(client(key).images.generate({ model: 'sized-1', prompt: 'x', n: 5 }));
      shape({ error: tooMany.error }, { type: 'invalid_request_error', code: 'invalid_value', param: 'n' });
      const quality = await failure(client(key).images.generate({ model: 'sized-1', prompt: 'x', quality: 'hd' }));
      shape({ error: quality.error }, { type: 'invalid_request_error', code: 'invalid_value', param: 'quality' });
      const format = await http(h.url, 'POST', '/openai/v1/images/generations', { key, body: { model: 'sized-1', prompt: 'x', response_format: 'png' } });
      expect(format.status).toBe(400);
      shape(format.body, { type: 'invalid_request_error', code: 'invalid_value', param: 'response_format' });
      const missing = await http(h.url, 'POST', '/openai/v1/images/generations', { key, body: { model: 'sized-1' } });
      expect(missing.status).toBe(400);
      shape(missing.body, { type: 'invalid_request_error', code: 'invalid_value', param: 'prompt' });
      expect((await http(h.url, 'GET', '/api/v1/generations', { key })).body.data).toEqual([]);
    });

    it('malformed JSON, a non-object body and an unknown route are 400/404 in OpenAI\'s shape, never 500', async () => {
      const { key } = await h.account('free', 100);
      const bad = await http(h.url, 'POST', '/openai/v1/images/generations', { key, rawBody: '{"model": "pixel-flux-1",', headers: { 'content-type': 'application/json' } });
      expect(bad.status).toBe(400);
      shape(bad.body, { type: 'invalid_request_error', code: 'invalid_request' });
      const array = await http(h.url, 'POST', '/openai/v1/images/generations', { key, rawBody: '[1]', headers: { 'content-type': 'application/json' } });
      expect(array.status).toBe(400);
      shape(array.body, { type: 'invalid_request_error', code: 'invalid_value' });
      const route = await http(h.url, 'POST', '/openai/v1/images/edits', { key, body: {} });
      expect(route.status).toBe(404);
      shape(route.body, { type: 'invalid_request_error', code: 'unknown_url' });
      const method = await http(h.url, 'GET', '/openai/v1/images/generations', { key });
      expect(method.status).toBe(405);
      shape(method.body, { type: 'invalid_request_error', code: 'method_not_allowed' });
      const encoding = await http(h.url, 'GET', '/openai/v1/models/%E0%A4%A', { key });
      expect(encoding.status).toBe(400);
      shape(encoding.body, { type: 'invalid_request_error', code: 'invalid_request' });
      // The service's own API keeps its envelope.
      const own = await http(h.url, 'POST', '/api/v1/generate', { key, rawBody: '{', headers: { 'content-type': 'application/json' } });
      expect(own.body.error).toMatchObject({ code: 'bad_request', status: 400 });
    });

    it('bad values of every field are 400 in OpenAI\'s shape, never 500, and create nothing', async () => {
      const { key } = await h.account('pro', 100); // pro: 60 requests a minute
      const bodies: unknown[] = [
        { model: 7, prompt: 'x' },
        { model: 'pixel-flux-1', prompt: null },
        { model: 'pixel-flux-1', prompt: 'x'.repeat(4001) },
        { model: 'pixel-flux-1', prompt: 'x', n: '2' },
        { model: 'pixel-flux-1', prompt: 'x', n: 1.5 },
        { model: 'pixel-flux-1', prompt: 'x', n: 0 },
        { model: 'pixel-flux-1', prompt: 'x', n: 1e9 },
        { model: 'pixel-flux-1', prompt: 'x', size: { w: 1 } },
        { model: 'pixel-flux-1', prompt: 'x', size: '0x0' },
        { model: 'sized-1', prompt: 'x', size: '99999x99999' },
        { model: 'pixel-flux-1', prompt: 'x', quality: ['hd'] },
        { model: 'pixel-flux-1', prompt: 'x', user: 'u'.repeat(501) },
        { model: 'pixel-flux-1', prompt: 'x\u0000y' },
        { model: 'pixel-flux-1', prompt: 'x', style: 'vivid' },
        { model: 'x'.repeat(101), prompt: 'x' },
      ];
      for (const body of bodies) {
        const res = await http(h.url, 'POST', '/openai/v1/images/generations', { key, body });
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(res.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.any(String) });
      }
      expect((await http(h.url, 'GET', '/api/v1/generations', { key })).body.data).toEqual([]);
    });

    it('no key or a wrong key is 401 invalid_api_key', async () => {
      const none = await http(h.url, 'GET', '/openai/v1/models');
      expect(none.status).toBe(401);
      shape(none.body, { type: 'invalid_request_error', code: 'invalid_api_key' });
      const wrong = await failure(client('gsk_live_' + 'B'.repeat(32)).models.list());
      expect(wrong.status).toBe(401);
      expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
      shape({ error: wrong.error }, { type: 'invalid_request_error', code: 'invalid_api_key' });
    });

    it('insufficient credits is OpenAI\'s billing error: 429 insufficient_quota, not to be retried', async () => {
      const { key } = await h.account('free', 1);
      const broke = await http(h.url, 'POST', '/openai/v1/images/generations', { key, body: { model: 'pixel-flux-1', prompt: 'x' } });
      expect(broke.status).toBe(429);
      shape(broke.body, { type: 'insufficient_quota', code: 'insufficient_quota' });
      expect(broke.headers.get('x-should-retry')).toBe('false');
      const viaClient = await failure(client(key).images.generate({ model: 'pixel-flux-1', prompt: 'x' }));
      expect(viaClient).toBeInstanceOf(OpenAI.RateLimitError);
      expect(viaClient.code).toBe('insufficient_quota');
    });

    it('a provider\'s refusal is 400 content_policy_violation, refunded', async () => {
      const { key } = await h.account('free', 100);
      const refused = await failure(client(key).images.generate({ model: 'refusing-1', prompt: 'something refused' }));
      expect(refused.status).toBe(400);
      shape({ error: refused.error }, { type: 'invalid_request_error', code: 'content_policy_violation', param: 'prompt' });
      const [record] = (await http(h.url, 'GET', '/api/v1/generations', { key })).body.data;
      expect(record).toMatchObject({ model: 'refusing-1', status: 'failed', credits_charged: 0 });
      expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body.available).toBe(100);
    });

    it('a generation still running after the waits is 504 generation_pending naming it, not retried; it goes on', async () => {
      const { key } = await h.account('free', 100);
      const pending = await http(h.url, 'POST', '/openai/v1/images/generations', { key, body: { model: 'gated-1', prompt: 'slow' } });
      expect(pending.status).toBe(504);
      shape(pending.body, { type: 'server_error', code: 'generation_pending' });
      expect(pending.headers.get('x-should-retry')).toBe('false');
      const [record] = (await http(h.url, 'GET', '/api/v1/generations', { key })).body.data;
      expect(pending.body.error.message).toContain(record.id);
      gated.open();
      const done = await eventually(async () => (await http(h.url, 'GET', `/api/v1/generations/${record.id}`, { key })).body, (r) => r.status === 'completed');
      expect(done.credits_charged).toBe(1);
    });

    it('the rate limit is 429 rate_limit_exceeded with retry-after', async () => {
      // Windows are whole minutes: start well inside one (the free plan allows 10 requests a minute).
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 10_000) await new Promise((r) => setTimeout(r, left + 100));
      const { key } = await h.account('free', 100);
      for (let i = 0; i < 10; i++) expect((await http(h.url, 'GET', '/openai/v1/models', { key })).status).toBe(200);
      const limited = await http(h.url, 'GET', '/openai/v1/models', { key });
      expect(limited.status).toBe(429);
      shape(limited.body, { type: 'requests', code: 'rate_limit_exceeded' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const viaClient = await failure(client(key).models.list());
      expect(viaClient).toBeInstanceOf(OpenAI.RateLimitError);
    });
  });

  it('publishes its own OpenAPI 3.1 document (no key), valid, lint-clean, and matching live answers', async () => {
    const res = await http(h.url, 'GET', '/openai/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as OpenApiDocument;
    expect(validateOpenApiDocument(doc)).toMatchObject({ ok: true, openapi: '3.1.0' });
    const lint = lintOpenApiDocument(doc);
    expect(lint.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)).toEqual([]);
    const validator = new ResponseValidator(doc);
    const { key } = await h.account('free', 4);
    const made = await http(h.url, 'POST', '/openai/v1/images/generations', { key, body: { model: 'pixel-flux-1', prompt: 'x', response_format: 'b64_json' } });
    expect(validator.check('/images/generations', 'post', 200, made.body)).toEqual([]);
    for (const body of [{ model: 'pixel-flux-1', prompt: 'x', size: '9x9' }, { model: 'no-such-model', prompt: 'x' }, { model: 'pixel-flux-1', prompt: 'x' }]) {
      const refused = await http(h.url, 'POST', '/openai/v1/images/generations', { key, body });
      expect(validator.check('/images/generations', 'post', refused.status, refused.body)).toEqual([]);
    }
    expect(validator.check('/models', 'get', 200, (await http(h.url, 'GET', '/openai/v1/models', { key })).body)).toEqual([]);
    expect(validator.check('/models/{model}', 'get', 200, (await http(h.url, 'GET', '/openai/v1/models/pixel-flux-1', { key })).body)).toEqual([]);
    expect(validator.check('/models', 'get', 401, (await http(h.url, 'GET', '/openai/v1/models')).body)).toEqual([]);
  });

  it('answers Python: the openai package where installed, else raw HTTP (tools/ci/openai-python.py)', async () => {
    const { key } = await h.account('free', 100);
    // Asynchronously: the service runs in this process.
    const { stdout: out } = await promisify(execFile)('python3', [join(__dirname, '..', '..', 'tools', 'ci', 'openai-python.py'), `${h.url}/openai/v1`, key], { encoding: 'utf8', timeout: 60_000 });
    const report = JSON.parse(out) as { via: string; url: string; b64_png: boolean; models: string[]; unknown_model: { status: number; code: string } };
    expect(['openai', 'urllib']).toContain(report.via);
    expect(report.url).toMatch(/\/cdn\/.+\.png$/);
    expect(report.b64_png).toBe(true);
    expect(report.models).toContain('pixel-flux-1');
    expect(report.unknown_model).toEqual({ status: 404, code: 'model_not_found' });
    expect((await http(h.url, 'GET', '/api/v1/generations', { key })).body.data).toHaveLength(2);
  });
});
