import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ERROR_STATUS, INTERNAL_ERROR_MESSAGE, mapHttpError } from '@gen/errors';
import { KeyCapsService } from '@gen/billing';
import { ApiKeysService } from '@gen/gateway';
import { JobJanitorService, ModelDefinitionInput } from '@gen/generation';
import { http, HttpResult } from '@gen/testing';
import { dependencyTimeoutMessage } from '@gen/transport';
import { newWebhookSecret, verify } from '@gen/webhook-signature';
import { testModel } from '../support/factories';
import { HoldEngine } from '../support/hold-engine';
import { lintOpenApiDocument, OpenApiDocument, OpenApiOperation, ResponseValidator, validateOpenApiDocument } from '../support/openapi';
import { openSse, SseClient } from '../support/sse';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

const heldModel: ModelDefinitionInput = testModel({ id: 'held-audio-1', engine: 'hold', type: 'TEXT_TO_AUDIO', credits: 2, synchronous: false });

/** Every operation of the document, with its path and method. */
function operations(doc: OpenApiDocument): Array<{ path: string; method: string; operation: OpenApiOperation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
}

/** `$ref`s to component schemas anywhere in a part of the document. */
function refs(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refs(n, into));
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') into.add(value.replace('#/components/schemas/', ''));
      else refs(value, into);
    }
  }
  return into;
}

/** The same message, values aside (a count of seconds, of credits, a limit, a delivery id): each is compared as one placeholder. */
/** POST /api/v1/uploads with a raw body, answered as `http` answers. */
async function upload(base: string, key: string, body: Buffer, contentType: string, path = '/api/v1/uploads'): Promise<{ status: number; body: any; headers: Headers; text: string }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': contentType }, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

/** Numbers aside, and the plural that goes with them ("Retry after 1 second" is the example's "# seconds"). */
const normalize = (message: string) =>
  message
    .replace(/wh_[A-Za-z0-9]+/g, 'wh_…')
    .replace(/\b1 (second|minute|hour|day|request|credit)\b/g, '1 $1s')
    .replace(/\d+/g, '#');

/** The OpenAPI document at /api/v1/openapi.json, checked against itself and against what the service answers. */
describe('standalone: the OpenAPI document', () => {
  let h: StandaloneHarness;
  let doc: OpenApiDocument;
  let validator: ResponseValidator;
  let account: { accountId: string; key: string; keyId: string };
  const hold = new HoldEngine('hold');

  beforeAll(async () => {
    // One live status stream per account, so the stream limit's 429 is one request away.
    h = await startStandaloneHarness({ SSE_STREAMS_PER_ACCOUNT: '1', UPLOAD_MAX_MB: '1', BATCH_MAX_MB: '1' }, { engines: { hold }, models: [heldModel] });
    account = await h.account('pro', 1000);
    const res = await http(h.url, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as OpenApiDocument;
    validator = new ResponseValidator(doc);
  });
  afterAll(async () => {
    hold.releaseAll();
    await h?.close();
  });

  /** An account with a key of the given scopes only. */
  async function keyWithScopes(scopes: Array<'generate' | 'read'>): Promise<string> {
    const created = await h.running.app.get(ApiKeysService).create(account.accountId, `only ${scopes.join(',')}`, scopes);
    return created.key;
  }

  it('is a valid OpenAPI 3.1 document (swagger-parser against the official schema)', () => {
    expect(validateOpenApiDocument(doc)).toMatchObject({ ok: true, openapi: '3.1.0' });
  });

  it("lints clean with Redocly's recommended rules: no error, no warning", () => {
    const lint = lintOpenApiDocument(doc);
    expect(lint.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)).toEqual([]);
    expect({ errors: lint.errors, warnings: lint.warnings }).toEqual({ errors: 0, warnings: 0 });
  });

  it('names every operation for generated clients: unique, descriptive, camelCase ids', () => {
    const ids = operations(doc).map(({ path, method, operation }) => ({ route: `${method} ${path}`, id: operation.operationId }));
    // A route that names none gets Controller_method, which this refuses: name it in @ApiOperation.
    expect(ids.filter(({ id }) => !/^[a-z]+(?:[A-Z][a-z0-9]*)+$/.test(id ?? ''))).toEqual([]);
    expect(new Set(ids.map(({ id }) => id)).size).toBe(ids.length);
    expect(Object.fromEntries(ids.map(({ route, id }) => [route, id]))).toMatchObject({
      'post /api/v1/generate': 'createGeneration',
      'get /api/v1/generations/{id}': 'getGeneration',
      'get /api/v1/generations': 'listGenerations',
      'post /api/v1/generations/{id}/cancel': 'cancelGeneration',
      'get /api/v1/generations/{id}/events': 'streamGenerationEvents',
      'get /api/v1/models': 'listModels',
      'get /api/v1/models/{id}': 'getModel',
      'get /api/v1/credits': 'getCredits',
      'get /api/v1/credits/ledger': 'listCreditLedger',
      'post /api/v1/webhooks/test': 'sendTestWebhook',
      'get /cdn/{shard}/{file}': 'getOutput',
    });
  });

  it('says where the API is (PUBLIC_BASE_URL), and documents the live stream as text/event-stream with JSON errors', () => {
    expect((doc as unknown as { servers: Array<{ url: string }> }).servers.map((s) => s.url)).toEqual([h.url]);
    const events = doc.paths['/api/v1/generations/{id}/events'].get;
    expect(Object.keys(events.responses['200'].content ?? {})).toEqual(['text/event-stream']);
    for (const status of ['401', '404', '429']) expect(Object.keys(events.responses[status].content ?? {})).toEqual(['application/json']);
  });

  it('describes every public endpoint, the content host, the error envelope and the headers, and nothing internal', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/credits',
        '/api/v1/credits/ledger',
        '/api/v1/webhooks/test',
        '/api/v1/generate',
        '/api/v1/generations',
        '/api/v1/generations/{id}',
        '/api/v1/generations/{id}/cancel',
        '/api/v1/generations/{id}/events',
        '/api/v1/generations/{id}/deliveries',
        '/api/v1/generations/{id}/redeliver',
        '/api/v1/models',
        '/cdn/{shard}/{file}',
      ]),
    );
    // The public API and its content host only: not the dashboard's JSON API, probes or metrics.
    expect(Object.keys(doc.paths).filter((path) => !path.startsWith('/api/v1/') && !path.startsWith('/cdn/'))).toEqual([]);
    expect(doc.components.schemas.ErrorEnvelopeDto).toBeDefined();
    const generate = doc.paths['/api/v1/generate'].post;
    expect(Object.keys(generate.responses)).toEqual(expect.arrayContaining(['200', '202', '401', '402', '403', '422', '429', '503']));
    for (const status of ['200', '202']) {
      expect(Object.keys(generate.responses[status].headers ?? {})).toEqual(
        expect.arrayContaining(['Location', 'X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
      );
    }
    expect(Object.keys(generate.responses['429'].headers ?? {})).toContain('Retry-After');
    expect(Object.keys(generate.responses['401'].headers ?? {})).toContain('WWW-Authenticate');
    expect(generate.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(['header:Idempotency-Key', 'header:X-Request-Id']));
    for (const { path, method, operation } of operations(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(`${method} ${path} ${status}: ${Object.keys(response.headers ?? {}).join(',')}`).toContain('X-Request-Id');
      }
    }
    // The content host needs no key and has no rate limit.
    const cdn = doc.paths['/cdn/{shard}/{file}'].get;
    expect(Object.keys(cdn.responses).sort()).toEqual(['200', '206', '302', '304', '404', '410']);
    expect(cdn.security ?? []).toEqual([]);
    expect(Object.keys(cdn.responses['404'].headers ?? {})).not.toContain('RateLimit-Limit');
  });

  it('says what the service answers to a reused Idempotency-Key: 422, not 409', () => {
    const generate = doc.paths['/api/v1/generate'].post;
    expect(generate.responses['409']).toBeUndefined();
    expect(generate.parameters?.find((p) => p.name === 'Idempotency-Key')?.description).toContain('is 422');
    expect(Object.keys(generate.responses['422'].content?.['application/json'].examples ?? {})).toContain('idempotency_key_reused');
  });

  it('lists only the schemas the public paths and webhooks use (no DTO of the dashboard or another internal route)', () => {
    const used = refs({ paths: doc.paths, webhooks: doc.webhooks });
    for (const name of [...used]) refs(doc.components.schemas[name], used);
    expect(Object.keys(doc.components.schemas).sort()).toEqual([...used].sort());
    for (const dashboardDto of ['CredentialsDto', 'CreateKeyDto', 'UpdateKeyDto']) expect(doc.components.schemas).not.toHaveProperty([dashboardDto]);
  });

  it('declares the API key as an opaque bearer token, not a JWT, and points at nothing customers cannot see', () => {
    expect(doc.components.securitySchemes?.apiKey).toEqual({ type: 'http', scheme: 'bearer', description: expect.stringContaining('gsk_live_') });
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/JWT|docs\/[a-z-]+\.md|apps\/|libs\//);
  });

  it('documents the webhooks: every event, their headers, the body and the signature', () => {
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual(['account.low_balance', 'generation.completed', 'generation.failed']);
    const schemaOf = (event: string) => (event === 'account.low_balance' ? 'AccountLowBalanceEventDto' : 'WebhookEventDto');
    for (const [event, item] of Object.entries(doc.webhooks ?? {})) {
      const post = item.post;
      expect(post.parameters?.map((p) => `${p.in}:${p.name}`).sort()).toEqual(
        ['header:User-Agent', 'header:X-Service-Delivery-Id', 'header:X-Service-Event', 'header:X-Service-Signature', 'header:X-Service-Timestamp'].sort(),
      );
      expect(post.parameters?.find((p) => p.name === 'X-Service-Event')?.schema).toEqual({ type: 'string', enum: [event] });
      expect(post.description).toMatch(/HMAC-SHA256/);
      expect(post.description).toContain('<X-Service-Timestamp>.<raw body>');
      const body = post.requestBody?.content['application/json'];
      expect(body?.schema).toEqual({ $ref: `#/components/schemas/${schemaOf(event)}` });
      expect({ event, problems: validator.checkSchema(schemaOf(event), body?.example) }).toEqual({ event, problems: [] });
      expect((body?.example as { event: string }).event).toBe(event);
      expect(Object.keys(post.responses)).toContain('2XX');
    }
  });

  it('has no placeholder examples: every string field has an example or a list of values', () => {
    const missing: string[] = [];
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      if (name === 'ErrorBodyDto') continue; // each error response carries whole examples of its own (checked below)
      for (const [field, property] of Object.entries((schema.properties ?? {}) as Record<string, any>)) {
        const types = Array.isArray(property.type) ? property.type : [property.type];
        if (types.includes('string') && property.example === undefined && property.enum === undefined) missing.push(`${name}.${field}`);
      }
    }
    expect(missing).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('"example":"string"');
  });

  it("shows under each error status only examples of that status, each a valid envelope", () => {
    for (const { path, method, operation } of operations(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const examples = response.content?.['application/json']?.examples ?? {};
        for (const [name, example] of Object.entries(examples)) {
          const where = `${method} ${path} ${status} ${name}`;
          // A status may have several codes (402: insufficient_credits, spending_cap_reached).
          const codes = Object.keys(ERROR_STATUS).filter((code) => ERROR_STATUS[code as keyof typeof ERROR_STATUS] === Number(status));
          expect({ where, codeOfStatus: codes.includes(example.value.error.code), status: example.value.error.status }).toEqual({
            where,
            codeOfStatus: true,
            status: Number(status),
          });
          expect({ where, problems: validator.checkSchema('ErrorEnvelopeDto', example.value) }).toEqual({ where, problems: [] });
        }
      }
    }
  });

  describe('each documented error example is what the service answers', () => {
    /** Examples whose text comes from one place for every route (parser, key guard, rate limiter): checked once. */
    const shared = (status: number, name: string) =>
      [400, 401, 413, 415, 500, 503].includes(status) || (status === 429 && name === 'rate_limit') || /^missing_\w+_scope$/.test(name);

    const streams: SseClient[] = [];
    /** A webhook receiver that never answers (its requests are cut when the test ends). */
    const silent: Server = createServer(() => undefined);
    beforeAll(() => new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve)));
    afterAll(async () => {
      streams.forEach((s) => s.close());
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    /** How to make the service answer each documented example, live. */
    async function liveCases(): Promise<Record<string, () => Promise<HttpResult>>> {
      const key = account.key;
      const image = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'a documented fox', type: 'TEXT_TO_IMAGE' } });
      expect(image.status).toBe(200);
      const held = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'held-audio-1', prompt: 'still going', type: 'TEXT_TO_AUDIO' } });
      expect(held.status).toBe(202);
      await hold.startedJob(held.body.id);
      const generationRoutes: Array<[string, string, (id: string) => string]> = [
        ['get', '/api/v1/generations/{id}', (id) => `/api/v1/generations/${id}`],
        ['get', '/api/v1/generations/{id}/events', (id) => `/api/v1/generations/${id}/events`],
        ['post', '/api/v1/generations/{id}/cancel', (id) => `/api/v1/generations/${id}/cancel`],
        ['get', '/api/v1/generations/{id}/deliveries', (id) => `/api/v1/generations/${id}/deliveries`],
        ['post', '/api/v1/generations/{id}/redeliver', (id) => `/api/v1/generations/${id}/redeliver`],
      ];
      const cases: Record<string, () => Promise<HttpResult>> = {
        '400 invalid_json': () => http(h.url, 'POST', '/api/v1/generate', { key, rawBody: '{"model":', headers: { 'content-type': 'application/json' } }),
        '401 no_key': () => http(h.url, 'GET', '/api/v1/credits'),
        '413 too_large': () =>
          http(h.url, 'POST', '/api/v1/generate', { key, rawBody: JSON.stringify({ prompt: 'x'.repeat(70_000) }), headers: { 'content-type': 'application/json' } }),
        '415 not_json': () => http(h.url, 'POST', '/api/v1/generate', { key, rawBody: 'model=pixel-flux-1', headers: { 'content-type': 'text/plain' } }),
        '429 rate_limit': async () => {
          const free = await h.account('free', 10);
          for (;;) {
            const res = await http(h.url, 'GET', '/api/v1/credits', { key: free.key });
            if (res.status !== 200) return res;
          }
        },
        '403 missing_generate_scope': async () =>
          http(h.url, 'POST', '/api/v1/generate', { key: await keyWithScopes(['read']), body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' } }),
        '403 missing_read_scope': async () => http(h.url, 'GET', '/api/v1/models', { key: await keyWithScopes(['generate']) }),
        'post /api/v1/generate 402 below_minimum': async () =>
          http(h.url, 'POST', '/api/v1/generate', { key: (await h.account('pro', 1)).key, body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' } }),
        'post /api/v1/generate 402 spending_cap': async () => {
          const capped = await h.account('pro', 100);
          await h.running.app.get(KeyCapsService).set({ accountId: capped.accountId, keyId: capped.keyId, perDay: 10 });
          const body = { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' };
          for (let spent = 0; spent + 4 <= 10; spent += 4) expect((await http(h.url, 'POST', '/api/v1/generate', { key: capped.key, body })).status).toBe(200);
          return http(h.url, 'POST', '/api/v1/generate', { key: capped.key, body });
        },
        'post /api/v1/generate 403 plan': async () =>
          http(h.url, 'POST', '/api/v1/generate', { key: (await h.account('free', 100)).key, body: { model: 'pixel-flux-1-hd', prompt: 'x', type: 'TEXT_TO_IMAGE' } }),
        'post /api/v1/generate 422 fields': () => http(h.url, 'POST', '/api/v1/generate', { key, body: {} }),
        'post /api/v1/generate 422 unknown_model': () =>
          http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'fox-9', prompt: 'x', type: 'TEXT_TO_IMAGE' } }),
        'post /api/v1/generate 422 idempotency_key_reused': async () => {
          const headers = { 'idempotency-key': `doc-${Date.now()}` };
          const first = await http(h.url, 'POST', '/api/v1/generate', { key, headers, body: { model: 'pixel-flux-1', prompt: 'first', type: 'TEXT_TO_IMAGE' } });
          expect(first.status).toBe(200);
          return http(h.url, 'POST', '/api/v1/generate', { key, headers, body: { model: 'pixel-flux-1', prompt: 'second', type: 'TEXT_TO_IMAGE' } });
        },
        'get /api/v1/models/{id} 404 unknown_model': () => http(h.url, 'GET', '/api/v1/models/no-such-model', { key }),
        'get /api/v1/generations 422 limit': () => http(h.url, 'GET', '/api/v1/generations?limit=0', { key }),
        'get /api/v1/credits/ledger 422 limit': () => http(h.url, 'GET', '/api/v1/credits/ledger?limit=0', { key }),
        'get /api/v1/credits/ledger 422 cursor': () => http(h.url, 'GET', '/api/v1/credits/ledger?cursor=nope', { key }),
        'post /api/v1/webhooks/test 422 no_secret': async () =>
          http(h.url, 'POST', '/api/v1/webhooks/test', { key: (await h.account('pro', 10)).key, body: { url: 'http://127.0.0.1:9/hook' } }),
        'post /api/v1/webhooks/test 422 no_url': async () => {
          const other = await h.account('pro', 10);
          await h.running.app.get(ApiKeysService).setWebhookUrl(other.accountId, other.keyId, null, newWebhookSecret());
          return http(h.url, 'POST', '/api/v1/webhooks/test', { key: other.key, body: {} });
        },
        'post /api/v1/webhooks/test 409 in_progress': async () => {
          // A receiver that holds every request: the first test event stays in delivery.
          const other = await h.account('pro', 10);
          await h.running.app.get(ApiKeysService).setWebhookUrl(other.accountId, other.keyId, null, newWebhookSecret());
          const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`;
          const first = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: other.key, body: { url } });
          expect(first.status).toBe(202);
          return http(h.url, 'POST', '/api/v1/webhooks/test', { key: other.key, body: { url } });
        },
        'get /api/v1/generations/{id}/events 429 streams': async () => {
          streams.push(await openSse(`${h.url}/api/v1/generations/${held.body.id}/events`, key));
          expect(streams[0].status).toBe(200);
          return http(h.url, 'GET', `/api/v1/generations/${held.body.id}/events`, { key });
        },
        'post /api/v1/generations/{id}/cancel 409 finished': () => http(h.url, 'POST', `/api/v1/generations/${image.body.id}/cancel`, { key }),
        'post /api/v1/generations/{id}/redeliver 409 unfinished': () => http(h.url, 'POST', `/api/v1/generations/${held.body.id}/redeliver`, { key }),
        'post /api/v1/generations/{id}/redeliver 409 no_destination': () => http(h.url, 'POST', `/api/v1/generations/${image.body.id}/redeliver`, { key }),
        '413 upload_too_large': () => upload(h.url, key, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1024 * 1024)]), 'image/png'),
        '415 media_type': () => upload(h.url, key, Buffer.from('<html></html>'), 'text/html'),
        'post /api/v1/uploads 422 mismatch': () => upload(h.url, key, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]), 'image/png'),
        'post /api/v1/uploads 422 empty': () => upload(h.url, key, Buffer.alloc(0), 'image/png'),
        'get /cdn/{shard}/{file} 404 unknown': () => http(h.url, 'GET', `/cdn/9b/${'9b1f0c6d'.repeat(4)}.png`),
        'get /cdn/{shard}/{file} 410 expired': async () => {
          const done = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'soon gone', type: 'TEXT_TO_IMAGE' } });
          await h.running.databases.generation.query(`UPDATE generation.jobs SET output_expires_at = now() - interval '1 second' WHERE id = $1`, [done.body.id]);
          await h.running.app.get(JobJanitorService).deleteExpiredOutputs();
          return http(h.url, 'GET', new URL(done.body.output_url as string).pathname);
        },
      };
      const batchRoutes: Array<[string, string, (id: string) => string]> = [
        ['get', '/api/v1/batches/{id}', (id) => `/api/v1/batches/${id}`],
        ['post', '/api/v1/batches/{id}/cancel', (id) => `/api/v1/batches/${id}/cancel`],
        ['get', '/api/v1/batches/{id}/results', (id) => `/api/v1/batches/${id}/results`],
        ['get', '/api/v1/batches/{id}/errors', (id) => `/api/v1/batches/${id}/errors`],
      ];
      const batchLine = (customId: string, model: string) => JSON.stringify({ custom_id: customId, body: { model, prompt: 'a red chair', type: 'TEXT_TO_IMAGE' } });
      // An account of its own: these requests do not eat into the rate limit of the others.
      const batcher = (await h.account('pro', 100)).key;
      const batch = (body: string | Buffer, contentType = 'application/jsonl', query = '') => upload(h.url, batcher, Buffer.from(body), contentType, `/api/v1/batches${query}`);
      Object.assign(cases, {
        '413 file_too_large': () => batch(Buffer.alloc(1024 * 1024 + 1, 0x20)),
        '413 too_many_lines': () => batch('{}\n'.repeat(50_001)),
        '415 batch_media_type': () => batch(batchLine('a', 'pixel-flux-1'), 'text/plain'),
        'post /api/v1/batches 422 bad_lines': () => batch([batchLine('shot-0001', 'pixel-flux-1'), batchLine('shot-0002', 'fox-9'), batchLine('shot-0003', 'pixel-flux-1')].join('\n')),
        'post /api/v1/batches 422 window': () => batch(batchLine('a', 'pixel-flux-1'), 'application/jsonl', '?completion_window=200h'),
        'get /api/v1/batches 422 limit': () => http(h.url, 'GET', '/api/v1/batches?limit=0', { key: batcher }),
      });
      for (const [method, path, url] of [...generationRoutes, ...batchRoutes]) {
        cases[`${method} ${path} 404 unknown_id`] = () => http(h.url, method.toUpperCase(), url(UNKNOWN_ID), { key });
        cases[`${method} ${path} 404 not_an_id`] = () => http(h.url, method.toUpperCase(), url('not-an-id'), { key });
      }
      return cases;
    }

    it('live, word for word (numbers aside), for every route and status that documents one', async () => {
      const cases = await liveCases();
      const documented = new Map<string, { message: string; where: string }>();
      for (const { path, method, operation } of operations(doc)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const [name, example] of Object.entries(response.content?.['application/json']?.examples ?? {})) {
            if (Number(status) < 400) continue;
            const id = shared(Number(status), name) ? `${status} ${name}` : `${method} ${path} ${status} ${name}`;
            const message = example.value.error.message as string;
            const seen = documented.get(id);
            // A shared example must read the same wherever it is documented.
            if (seen) expect({ id, message }).toEqual({ id, message: seen.message });
            else documented.set(id, { message, where: `${method} ${path}` });
          }
        }
      }
      // 500 and 503 cannot be caused from outside: their examples are checked against the code that writes them.
      expect(documented.get('500 unexpected')?.message).toBe(mapHttpError(new Error('10.0.0.7:5432 refused')).message);
      expect(documented.get('500 unexpected')?.message).toBe(INTERNAL_ERROR_MESSAGE);
      expect(documented.get('503 dependency')?.message).toBe(dependencyTimeoutMessage('billing.reserve'));
      documented.delete('500 unexpected');
      documented.delete('503 dependency');

      expect([...documented.keys()].filter((id) => !cases[id]).map((id) => `no live case for the documented example ${id}`)).toEqual([]);
      const answers: Array<{ id: string; status: number; message: string }> = [];
      const expected: typeof answers = [];
      for (const [id, { message }] of documented) {
        const res = await cases[id]();
        expect(res.headers.get('x-request-id')).toBe(res.body?.error?.request_id);
        answers.push({ id, status: res.status, message: normalize(String(res.body?.error?.message)) });
        expected.push({ id, status: Number(/(?:^| )(\d{3}) \w+$/.exec(id)?.[1]), message: normalize(message) });
      }
      expect(answers).toEqual(expected);
    });
  });

  it('matches live responses, successes and errors alike', async () => {
    const key = account.key;
    const poor = await h.account('pro', 1);
    const free = await h.account('free', 100);
    const cases: Array<{ path: string; method: string; send: () => Promise<{ status: number; body: any; headers: Headers }> }> = [];
    const add = (path: string, method: string, send: () => Promise<any>) => cases.push({ path, method, send });
    const image = await http(h.url, 'POST', '/api/v1/generate', {
      key,
      body: { model: 'pixel-flux-1', prompt: 'a documented lighthouse', type: 'TEXT_TO_IMAGE' },
    });
    add('/api/v1/generate', 'post', async () => image);
    add('/api/v1/generate', 'post', () =>
      http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'tone-weaver-1', prompt: 'a documented bell', type: 'TEXT_TO_AUDIO' } }),
    );
    add('/api/v1/generate', 'post', () => http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'nope', prompt: 'x', type: 'TEXT_TO_IMAGE' } }));
    add('/api/v1/generate', 'post', () =>
      http(h.url, 'POST', '/api/v1/generate', { key: poor.key, body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' } }),
    );
    add('/api/v1/generate', 'post', () =>
      http(h.url, 'POST', '/api/v1/generate', { key: free.key, body: { model: 'pixel-flux-1-hd', prompt: 'x', type: 'TEXT_TO_IMAGE' } }),
    );
    add('/api/v1/generate', 'post', () =>
      http(h.url, 'POST', '/api/v1/generate', { key, rawBody: '{"model":', headers: { 'content-type': 'application/json' } }),
    );
    add('/api/v1/generate', 'post', () => http(h.url, 'POST', '/api/v1/generate', { body: {} }));
    add('/api/v1/generations/{id}', 'get', () => http(h.url, 'GET', `/api/v1/generations/${image.body.id}`, { key }));
    add('/api/v1/generations/{id}', 'get', () => http(h.url, 'GET', `/api/v1/generations/${UNKNOWN_ID}`, { key }));
    add('/api/v1/generations', 'get', () => http(h.url, 'GET', '/api/v1/generations?limit=1', { key }));
    add('/api/v1/generations', 'get', () => http(h.url, 'GET', '/api/v1/generations?limit=0', { key }));
    add('/api/v1/generations/{id}/deliveries', 'get', () => http(h.url, 'GET', `/api/v1/generations/${image.body.id}/deliveries`, { key }));
    add('/api/v1/generations/{id}/redeliver', 'post', () => http(h.url, 'POST', `/api/v1/generations/${image.body.id}/redeliver`, { key }));
    add('/api/v1/models', 'get', () => http(h.url, 'GET', '/api/v1/models', { key }));
    add('/api/v1/credits', 'get', () => http(h.url, 'GET', '/api/v1/credits', { key }));
    add('/cdn/{shard}/{file}', 'get', () => http(h.url, 'GET', `/cdn/00/${'0'.repeat(32)}.png`));
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100)]);
    add('/api/v1/uploads', 'post', () => upload(h.url, key, png, 'image/png'));
    add('/api/v1/uploads', 'post', () => upload(h.url, key, png, 'image/webp'));
    const batcher = (await h.account('pro', 100)).key;
    const batchFile = Buffer.from(JSON.stringify({ custom_id: 'doc-1', body: { model: 'pixel-flux-1', prompt: 'a documented chair', type: 'TEXT_TO_IMAGE' } }));
    const created = await upload(h.url, batcher, batchFile, 'application/jsonl', '/api/v1/batches');
    add('/api/v1/batches', 'post', async () => created);
    add('/api/v1/uploads', 'post', () => upload(h.url, batcher, batchFile, 'application/jsonl'));
    add('/api/v1/batches', 'get', () => http(h.url, 'GET', '/api/v1/batches?limit=1', { key: batcher }));
    add('/api/v1/batches/{id}', 'get', () => http(h.url, 'GET', `/api/v1/batches/${created.body.id}`, { key: batcher }));
    add('/api/v1/batches/{id}', 'get', () => http(h.url, 'GET', `/api/v1/batches/${UNKNOWN_ID}`, { key: batcher }));
    add('/api/v1/batches/{id}/cancel', 'post', () => http(h.url, 'POST', `/api/v1/batches/${created.body.id}/cancel`, { key: batcher }));

    const seen = new Set<number>();
    for (const c of cases) {
      const res = await c.send();
      seen.add(res.status);
      const problems = validator.check(c.path, c.method, res.status, res.body);
      expect({ request: `${c.method} ${c.path} -> ${res.status}`, problems }).toEqual({ request: expect.any(String), problems: [] });
      expect(res.headers.get('x-request-id')).toBeTruthy();
      // Rate-limit headers on every answer of the API that got past authentication (not on input
      // rejected before the route runs: unreadable body, 413, 415; not on the content host).
      if (![400, 401, 413, 415].includes(res.status) && c.path.startsWith('/api/')) {
        for (const header of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
          expect({ request: `${c.method} ${c.path} -> ${res.status}`, [header]: res.headers.get(header) }).toEqual({
            request: expect.any(String),
            [header]: expect.stringMatching(/^\d+$/),
          });
        }
      }
      if (c.path === '/api/v1/generate' && res.status < 300) {
        expect(res.headers.get('location')).toBe(`/api/v1/generations/${res.body.id}`);
      }
    }
    expect([...seen].sort()).toEqual([200, 201, 202, 400, 401, 402, 403, 404, 409, 422]);
    // A completed generation's output_url is the documented content route, and answers 200.
    expect(new URL(image.body.output_url as string).pathname).toMatch(/^\/cdn\/[0-9a-f]{2}\/[0-9a-f]{32}\.png$/);
    expect((await fetch(image.body.output_url as string)).status).toBe(200);
  });

  it('describes a live webhook request: its headers match the parameters, its body the schema, its signature the description', async () => {
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
      const secret = newWebhookSecret();
      await h.running.app.get(ApiKeysService).setWebhookUrl(account.accountId, account.keyId, null, secret);
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const done = await http(h.url, 'POST', '/api/v1/generate', {
        key: account.key,
        body: { model: 'pixel-flux-1', prompt: 'a signed fox', type: 'TEXT_TO_IMAGE', webhook_url: url },
      });
      expect(done.status).toBe(200);
      for (let i = 0; i < 100 && received.length === 0; i++) await sleep(100);
      const [request] = received;
      const operation = doc.webhooks?.['generation.completed'].post as OpenApiOperation;
      for (const parameter of operation.parameters ?? []) {
        const value = request.headers[parameter.name.toLowerCase()] as string;
        const schema = parameter.schema as { enum?: string[]; pattern?: string };
        if (schema.enum) expect({ header: parameter.name, value }).toEqual({ header: parameter.name, value: schema.enum[0] });
        if (schema.pattern) expect({ header: parameter.name, value }).toEqual({ header: parameter.name, value: expect.stringMatching(new RegExp(schema.pattern)) });
      }
      expect(validator.checkSchema('WebhookEventDto', JSON.parse(request.body))).toEqual([]);
      expect(JSON.parse(request.body)).toMatchObject({ event: 'generation.completed', id: done.body.id });
      expect(() => verify(request.body, request.headers, secret)).not.toThrow();
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it('serves a docs page', async () => {
    const res = await fetch(`${h.url}/api/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('swagger');
  });
});
