import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BillingService } from '@gen/billing';
import { CATALOGUE, ModelDefinitionInput } from '@gen/generation';
import { http } from '@gen/testing';
import { testModel } from '../support/factories';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { rawExchange, RawResponse } from '../support/raw-http';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/**
 * Property-based fuzzing of every public and dashboard route, as an attacker would send them: random
 * methods, paths and path parameters, query strings, headers (credentials valid or not, content
 * types, charsets, encodings, malformed values), and bodies (near-valid, arbitrary JSON, nested
 * thousands deep, NUL, invalid UTF-8, random bytes, wrong lengths). Written on the raw socket, so
 * nothing is tidied by an HTTP client on the way.
 *
 * Every answer: never a 5xx; an error is the envelope with its request id (also in X-Request-Id);
 * a success carries X-Request-Id. Afterwards the process still serves, and credits moved only for
 * the generations that were accepted (every job of the account is one of them, and the balance is
 * the initial one less what those were charged).
 *
 * Bounded by time (FUZZ_MS, default 50 s). FUZZ_SEED replays a run; a failure prints its seed,
 * path and counterexample (fast-check's report).
 */
const FUZZ_MS = Number(process.env.FUZZ_MS ?? 50_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const INITIAL_CREDITS = 1_000_000;

const MODELS = ['pixel-flux-1', 'pixel-flux-1-hd', 'motion-lite-1', 'tone-weaver-1', 'mesh-smith-1', 'voice-1', 'fuzz-inputs-1'];

/** A model with inputs of every kind and a price that follows one, so `input` and `metadata` are fuzzed against a real schema. */
const INPUTS_MODEL: ModelDefinitionInput = testModel({
  id: 'fuzz-inputs-1',
  engine: 'instant',
  credits: 2,
  priceMultipliers: ['num_outputs'],
  inputs: {
    type: 'object',
    properties: {
      num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
      aspect_ratio: { type: 'string', enum: ['1:1', '16:9'], default: '1:1' },
      seed: { type: 'integer', minimum: 0, maximum: 2147483647 },
      guidance: { type: 'number', minimum: 0, maximum: 10 },
      negative_prompt: { type: 'string', maxLength: 200 },
      safe: { type: 'boolean' },
      image: { type: 'string', format: 'uri' },
    },
    additionalProperties: false,
  },
});
const TYPES = ['TEXT_TO_IMAGE', 'TEXT_TO_VIDEO', 'TEXT_TO_AUDIO', 'TEXT_TO_3D'];

/** Routes as the server declares them (`:id` and `:shard`/`:file` filled by the fuzzer). */
const ROUTES: Array<[string, string]> = [
  ['POST', '/api/v1/generate'],
  ['POST', '/api/v1/generate'],
  ['GET', '/api/v1/generations/:id'],
  ['GET', '/api/v1/generations'],
  ['GET', '/api/v1/generations/:id/deliveries'],
  ['POST', '/api/v1/generations/:id/redeliver'],
  ['POST', '/api/v1/generations/:id/cancel'],
  ['GET', '/api/v1/generations/:id/events'],
  ['GET', '/api/v1/models'],
  ['GET', '/api/v1/credits'],
  ['GET', '/api/v1/openapi.json'],
  ['GET', '/cdn/:shard/:file'],
  ['GET', '/dashboard/api/session'],
  ['POST', '/dashboard/api/sign-up'],
  ['POST', '/dashboard/api/sign-in'],
  ['POST', '/dashboard/api/sign-out'],
  ['GET', '/dashboard/api/overview'],
  ['GET', '/dashboard/api/generations'],
  ['GET', '/dashboard/api/generations/:id'],
  ['POST', '/dashboard/api/generations/:id/redeliver'],
  ['GET', '/dashboard/api/keys'],
  ['POST', '/dashboard/api/keys'],
  ['PATCH', '/dashboard/api/keys/:id'],
  ['POST', '/dashboard/api/keys/:id/webhook-secret'],
  ['DELETE', '/dashboard/api/keys/:id'],
  ['GET', '/dashboard/'],
  ['GET', '/dashboard/:file'],
  ['GET', '/healthz'],
  ['GET', '/:file'],
];

interface Fixture {
  key: string;
  jobId: string;
  cookie: string;
  csrf: string;
  dashboardKeyId: string;
}

describe('HTTP fuzz (standalone, every public and dashboard route)', () => {
  let h: StandaloneHarness;
  let staticDir: string;
  let accountId: string;
  let f: Fixture;
  const accepted = new Set<string>();
  const statuses = new Map<number, number>();
  let requests = 0;

  beforeAll(async () => {
    staticDir = mkdtempSync(join(tmpdir(), 'gen-fuzz-static-'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>dashboard</title>');
    h = await startStandaloneHarness(
      { DASHBOARD_DIR: staticDir, HTTP_BODY_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000' },
      { models: [...CATALOGUE, INPUTS_MODEL] },
    );
    const account = await h.account('enterprise', INITIAL_CREDITS);
    accountId = account.accountId;
    // No rate limit in the way: every request reaches the code under test.
    await h.running.app.get(BillingService).setPlan(accountId, 'enterprise', { rpm: 10_000_000, parallel: 50 });
    await h.running.databases.auth.query(`UPDATE api_keys SET webhook_secret = 'whsec_fuzz' WHERE id = $1`, [account.keyId]);
    const first = await http(h.url, 'POST', '/api/v1/generate', {
      key: account.key,
      body: { model: 'pixel-flux-1', prompt: 'seed job', type: 'TEXT_TO_IMAGE' },
    });
    expect(first.status).toBe(200);
    accepted.add(first.body.id);
    const c = new DashboardClient(h.url, { 'x-forwarded-for': '198.51.100.200' });
    expect((await c.signUp(testEmail('fuzz'), TEST_PASSWORD)).status).toBe(201);
    const created = await c.request('POST', '/keys', { body: { name: 'fuzz' } });
    f = {
      key: account.key,
      jobId: first.body.id,
      cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      csrf: c.csrf,
      dashboardKeyId: created.body.key.id,
    };
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    rmSync(staticDir, { recursive: true, force: true });
  });

  // ---- arbitraries -------------------------------------------------------------------------

  const junk = fc.string({ unit: 'binary', maxLength: 40 });
  const text = fc.oneof(fc.string({ maxLength: 30 }), junk, fc.string({ unit: 'grapheme', maxLength: 20 }));
  const pathParam = (): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(f.jobId) },
      { weight: 2, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.constant(f.dashboardKeyId) },
      { weight: 2, arbitrary: text.map((s) => encodeURIComponent(s)) },
      { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '..%2F..%2Fetc%2Fpasswd', '%C0%AF', 'x'.repeat(101), 'a%20b') },
      { weight: 1, arbitrary: junk }, // raw, unencoded: spaces and control bytes break the request line
    );
  const query = (): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant('') },
      {
        weight: 2,
        arbitrary: fc
          .array(fc.tuple(fc.constantFrom('limit', 'cursor', 'status', 'type', 'x', '__proto__', 'limit[]'), fc.oneof(text, fc.integer().map(String))), { maxLength: 4 })
          .map((pairs) => (pairs.length ? '?' + pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&') : '')),
      },
      { weight: 1, arbitrary: fc.constantFrom('?%', '?a=%zz', '?cursor=%00', '?limit=1e999', '?' + 'a=1&'.repeat(500)) },
    );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8',
        'application/json; charset="UTF-8"',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/json;;;',
        'APPLICATION/JSON',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonp',
        '',
      ),
    },
    { weight: 1, arbitrary: text },
    { weight: 2, arbitrary: fc.constant(undefined) },
  );
  const jsonText = (value: unknown) => JSON.stringify(value) ?? 'null';
  const nearValidGenerate = fc
    .record(
      {
        model: fc.oneof(fc.constantFrom(...MODELS), text),
        prompt: fc.oneof(fc.string({ minLength: 1, maxLength: 50 }), text, fc.constant('a\u0000b'), fc.string({ unit: 'grapheme', maxLength: 200 })),
        type: fc.oneof(fc.constantFrom(...TYPES), text),
        webhook_url: fc.oneof(fc.webUrl(), text, fc.constantFrom('http://127.0.0.1:9/x', 'https://ho%6Fks.example.com./', ' http://a.example/')),
        extra: fc.jsonValue({ maxDepth: 2 }),
        input: fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.record(
            {
              num_outputs: fc.oneof(fc.integer({ min: -5, max: 1_000 }), fc.double(), text),
              aspect_ratio: fc.oneof(fc.constantFrom('1:1', '16:9', '4:3'), text),
              seed: fc.oneof(fc.integer(), fc.constant(2 ** 31), fc.double(), fc.jsonValue({ maxDepth: 3 })),
              guidance: fc.oneof(fc.double(), fc.constantFrom(-1, 11, 1e308), text),
              negative_prompt: fc.oneof(text, fc.constant('x'.repeat(10_001)), fc.constant('a\u0000b')),
              safe: fc.oneof(fc.boolean(), text),
              image: fc.oneof(fc.webUrl(), text, fc.constantFrom('upl_' + 'a'.repeat(24), 'file:///etc/passwd', 'http://127.0.0.1/x.png')),
              steps: fc.jsonValue({ maxDepth: 2 }),
            },
            { requiredKeys: [] },
          ),
        ),
        metadata: fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.dictionary(fc.oneof(text, fc.string({ minLength: 35, maxLength: 45 })), fc.oneof(text, fc.string({ minLength: 490, maxLength: 510 }), fc.jsonValue({ maxDepth: 2 })), {
            maxKeys: 20,
          }),
        ),
      },
      { requiredKeys: [] },
    )
    .map(jsonText);
  // Valid requests too, so that the credit check covers accepted generations among the refused ones.
  const validGenerate = fc
    .record({
      pair: fc.constantFrom(['pixel-flux-1', 'TEXT_TO_IMAGE'], ['motion-lite-1', 'TEXT_TO_VIDEO'], ['tone-weaver-1', 'TEXT_TO_AUDIO'], ['mesh-smith-1', 'TEXT_TO_3D'], ['fuzz-inputs-1', 'TEXT_TO_IMAGE']),
      prompt: fc.string({ minLength: 1, maxLength: 80 }).filter((p) => p.trim().length > 0 && !p.includes('\u0000')),
      webhook: fc.boolean(),
      input: fc.record({ num_outputs: fc.integer({ min: 1, max: 4 }), seed: fc.nat(), aspect_ratio: fc.constantFrom('1:1', '16:9') }, { requiredKeys: [] }),
      metadata: fc.dictionary(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ maxLength: 500 }).filter((v) => !v.includes('\u0000')), { maxKeys: 16 }),
    })
    .map(({ pair, prompt, webhook, input, metadata }) =>
      jsonText({
        model: pair[0],
        prompt,
        type: pair[1],
        ...(webhook ? { webhook_url: 'http://127.0.0.1:9/hook' } : {}),
        ...(pair[0] === 'fuzz-inputs-1' ? { input, metadata } : {}),
      }),
    );
  const nearValidCredentials = fc.record({ email: fc.oneof(fc.emailAddress(), text), password: fc.oneof(fc.constant(TEST_PASSWORD), text) }, { requiredKeys: [] }).map(jsonText);
  const nearValidKey = fc
    .record({ name: text, scopes: fc.oneof(fc.constant(['generate']), fc.array(text, { maxLength: 3 })), webhook_url: fc.oneof(fc.constant(null), fc.webUrl(), text) }, { requiredKeys: [] })
    .map(jsonText);
  const deep = fc
    .tuple(fc.integer({ min: 1, max: 6_000 }), fc.constantFrom('{"a":', '['), fc.boolean())
    .map(([levels, open, closed]) => {
      const close = open === '[' ? ']' : '}';
      return open.repeat(levels) + '1' + (closed ? close.repeat(levels) : '');
    });
  const body: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 6, arbitrary: nearValidGenerate },
    { weight: 4, arbitrary: validGenerate },
    { weight: 2, arbitrary: nearValidCredentials },
    { weight: 2, arbitrary: nearValidKey },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(jsonText) },
    { weight: 2, arbitrary: deep },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 120 }).map((bytes) => Buffer.from(bytes)) },
    {
      weight: 2,
      arbitrary: nearValidGenerate.chain((valid) =>
        fc.tuple(fc.nat({ max: valid.length }), fc.uint8Array({ minLength: 1, maxLength: 3 })).map(([at, bytes]) =>
          Buffer.concat([Buffer.from(valid.slice(0, at)), Buffer.from(bytes), Buffer.from(valid.slice(at))]),
        ),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('', 'null', '[]', '"x"', '1e999', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '{'.repeat(3) + '"' + 'x'.repeat(70_000)) },
  );
  const authorization = (): fc.Arbitrary<string | undefined> =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(`Bearer ${f.key}`) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: text.map((t) => `Bearer ${t}`) },
      { weight: 1, arbitrary: fc.constantFrom('Bearer gsk_live_' + 'A'.repeat(32), 'Basic eDp5', 'Bearer', 'bearer  ' + f.key) },
    );
  const lengthMode = fc.oneof(
    { weight: 20, arbitrary: fc.constant('exact' as const) },
    { weight: 1, arbitrary: fc.constantFrom('none' as const, 'short' as const, 'long' as const, 'chunked' as const, 'both' as const, 'twice' as const) },
  );
  const extraHeader = fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('Idempotency-Key', 'X-Request-Id', 'X-Forwarded-For', 'Accept', 'Content-Encoding', 'Origin', 'Range'), text) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('Content-Encoding'), fc.constantFrom('gzip', 'identity', 'br, gzip', 'x')) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('Idempotency-Key'), fc.uuid()) },
    { weight: 1, arbitrary: fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), junk) },
  );

  const requestArbitrary = () =>
    fc.record({
      route: fc.constantFrom(...ROUTES),
      // Mostly the route's own method; now and then another one.
      method: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS') }),
      params: fc.tuple(pathParam(), pathParam()),
      query: query(),
      authorization: authorization(),
      session: fc.boolean(),
      csrf: fc.oneof(fc.constant(f.csrf), fc.constant(undefined), text),
      contentType,
      body,
      lengthMode,
      extra: extraHeader,
    });

  type FuzzRequest = ReturnType<ReturnType<typeof requestArbitrary>['generate']>['value'];

  function bytesOf(r: FuzzRequest): Buffer {
    let i = 0;
    const path = r.route[1].replace(/:(id|shard|file)/g, () => r.params[i++ % 2]);
    const method = r.method ?? r.route[0];
    const headers: string[] = [`Host: 127.0.0.1:${new URL(h.url).port}`, 'Connection: close', 'X-Forwarded-For: 198.51.100.201'];
    if (r.authorization !== undefined) headers.push(`Authorization: ${r.authorization}`);
    if (r.session) headers.push(`Cookie: ${f.cookie}`);
    if (r.csrf !== undefined) headers.push(`X-CSRF-Token: ${r.csrf}`);
    if (r.contentType !== undefined) headers.push(`Content-Type: ${r.contentType}`);
    if (r.extra) headers.push(`${r.extra[0]}: ${r.extra[1]}`);
    const payload = r.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
    if (r.body !== undefined) {
      switch (r.lengthMode) {
        case 'exact':
          headers.push(`Content-Length: ${payload.length}`);
          break;
        case 'short':
          headers.push(`Content-Length: ${Math.max(0, payload.length - 1)}`);
          break;
        case 'long':
          headers.push(`Content-Length: ${payload.length + 5}`);
          break;
        case 'chunked':
          headers.push('Transfer-Encoding: chunked');
          return Buffer.concat([
            Buffer.from(`${method} ${path}${r.query} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n${payload.length.toString(16)}\r\n`, 'latin1'),
            payload,
            Buffer.from('\r\n0\r\n\r\n'),
          ]);
        case 'both':
          headers.push(`Content-Length: ${payload.length}`, 'Transfer-Encoding: chunked');
          break;
        case 'twice':
          headers.push(`Content-Length: ${payload.length}`, `Content-Length: ${payload.length + 1}`);
          break;
        case 'none':
          break;
      }
    }
    return Buffer.concat([Buffer.from(`${method} ${path}${r.query} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
  }

  function check(r: FuzzRequest, res: RawResponse): void {
    const what = `${r.method ?? r.route[0]} ${r.route[1]} -> ${res.status} ${res.body.slice(0, 300)}`;
    if (res.status === 0) throw new Error(`no answer: ${what}`);
    if (res.status >= 500) throw new Error(`5xx: ${what}`);
    const requestId = res.headers['x-request-id'];
    if (!requestId) throw new Error(`no X-Request-Id: ${what}`);
    if (res.status >= 400) {
      const error = res.json?.error;
      const keys = error && typeof error === 'object' ? Object.keys(error).sort().join(',') : '';
      if (keys !== 'code,message,request_id,status' || error.status !== res.status || typeof error.code !== 'string' || typeof error.message !== 'string') {
        throw new Error(`not the envelope: ${what}`);
      }
      if (error.request_id !== requestId) throw new Error(`request_id differs from X-Request-Id: ${what}`);
      if (!/^application\/json/.test(res.headers['content-type'] ?? '')) throw new Error(`error not JSON: ${what}`);
    }
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const method = r.method ?? r.route[0];
    if (method === 'POST' && r.route[1] === '/api/v1/generate' && (res.status === 200 || res.status === 202)) accepted.add(res.json.id);
  }

  it(`never answers 5xx or outside the envelope, and moves credits only for accepted generations (about ${Math.round(FUZZ_MS / 1000)} s)`, async () => {
    const started = Date.now();
    try {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(), async (r) => {
          requests += 1;
          const res = await rawExchange(h.url, [bytesOf(r)], { timeoutMs: 5_000 });
          check(r, res);
        }),
        { seed: SEED, numRuns: 1_000_000, interruptAfterTimeLimit: FUZZ_MS, markInterruptAsFailure: false, endOnFailure: true },
      );
    } finally {
      const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ');
      process.stdout.write(
        `http fuzz: ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED} (FUZZ_SEED=${SEED} replays it); ` +
          `${accepted.size - 1} generations accepted; answers by status: ${byStatus}\n`,
      );
    }
    expect(requests).toBeGreaterThan(500);

    // Still up and serving.
    expect((await http(h.url, 'GET', '/readyz')).status).toBe(200);
    const after = await http(h.url, 'POST', '/api/v1/generate', { key: f.key, body: { model: 'pixel-flux-1', prompt: 'after the fuzz', type: 'TEXT_TO_IMAGE' } });
    expect(after.status).toBe(200);
    accepted.add(after.body.id);

    // Credits: every job of the account was accepted, and the balance is what those were charged.
    const billing = h.running.app.get(BillingService);
    const deadline = Date.now() + 60_000;
    while ((await billing.balance(accountId)).held > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const jobs = (await h.running.databases.generation.query('SELECT id::text AS id, credits, status FROM jobs WHERE account_id = $1', [accountId])) as Array<{
      id: string;
      credits: number;
      status: string;
    }>;
    expect(jobs.map((j) => j.id).sort()).toEqual([...accepted].sort());
    const records = await Promise.all([...accepted].map((id) => http(h.url, 'GET', `/api/v1/generations/${id}`, { key: f.key }).then((res) => res.body)));
    const charged = records.reduce((sum, record) => sum + (record.credits_charged as number), 0);
    const balance = await billing.balance(accountId);
    expect({ held: balance.held, available: balance.available }).toEqual({ held: 0, available: INITIAL_CREDITS - charged });
  }, FUZZ_MS + 120_000);
});
