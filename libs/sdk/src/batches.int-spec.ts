import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Batch, BatchLineResult, BatchRequestLine } from './index.js';
import { GenerationApiError, GenerationClient } from './index.js';

/** The TypeScript SDK's batches against a local HTTP server that records each request and answers as the API would. */

interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: Buffer;
}
type Handler = (req: Seen, res: ServerResponse) => unknown;

function batch(overrides: Partial<Batch> = {}): Batch {
  return {
    id: 'batch_01',
    object: 'batch',
    status: 'in_progress',
    completion_window: '24h',
    created_at: '2026-11-28T20:00:00.000Z',
    expires_at: '2026-11-29T20:00:00.000Z',
    finished_at: null,
    canceled_at: null,
    request_counts: { total: 2, invalid: 0, waiting: 2, queued: 0, processing: 0, completed: 0, failed: 0, canceled: 0, expired: 0 },
    credits_charged: 0,
    webhook_url: null,
    metadata: {},
    ...overrides,
  };
}

function lineResult(line: number, overrides: Partial<BatchLineResult> = {}): BatchLineResult {
  return { line, custom_id: `shot-${line}`, outcome: 'failed', generation: null, error: { code: 'insufficient_credits', message: 'Not enough credits.' }, ...overrides };
}

const requestLine = (n: number): BatchRequestLine => ({ custom_id: `shot-${n}`, body: { model: 'pixel-flux-1', prompt: `product ${n}`, type: 'TEXT_TO_IMAGE' } });
const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const errorEnvelope = (status: number, code: string, extra: Record<string, unknown> = {}) => ({ error: { code, status, message: `${code} here`, request_id: 'req_1', ...extra } });

describe('batches (TypeScript SDK) against a local server', () => {
  let server: Server;
  let handler: Handler;
  const seen: Seen[] = [];
  let client: GenerationClient;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = { method: req.method ?? '', url: new URL(req.url ?? '/', 'http://x'), headers: req.headers, body: Buffer.concat(chunks) };
        seen.push(request);
        Promise.resolve(handler(request, res)).catch((error: unknown) => res.destroy(error as Error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new GenerationClient({ apiKey: 'gsk_live_test', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  beforeEach(() => {
    seen.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('creates from request lines: a JSONL body (application/jsonl), the options in the query, an idempotency key', async () => {
    handler = (_req, res) => json(res, 201, batch({ completion_window: '2h' }), { location: '/api/v1/batches/batch_01' });
    const created = await client.batches.create([requestLine(1), requestLine(2)], { completionWindow: '2h', invalidLines: 'skip', webhookUrl: 'https://example.com/hook' });
    expect(created).toMatchObject({ id: 'batch_01', object: 'batch', completion_window: '2h' });
    const [request] = seen;
    expect(request.method).toBe('POST');
    expect(request.url.pathname).toBe('/api/v1/batches');
    expect(Object.fromEntries(request.url.searchParams)).toEqual({ completion_window: '2h', invalid_lines: 'skip', webhook_url: 'https://example.com/hook' });
    expect(request.headers['content-type']).toBe('application/jsonl');
    expect(request.headers.authorization).toBe('Bearer gsk_live_test');
    expect(request.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    const sent = request.body.toString('utf8');
    expect(sent.endsWith('\n')).toBe(true);
    expect(sent.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual([requestLine(1), requestLine(2)]);
  });

  it('sends a JSONL string, bytes or a Blob as they are', async () => {
    handler = (_req, res) => json(res, 201, batch());
    const text = `${JSON.stringify(requestLine(1))}\r\n${JSON.stringify(requestLine(2))}`;
    await client.batches.create(text);
    await client.batches.create(new TextEncoder().encode(text));
    await client.batches.create(new Blob([text], { type: 'text/plain' }));
    expect(seen.map((r) => [r.headers['content-type'], r.body.toString('utf8'), r.url.search])).toEqual([
      ['application/jsonl', text, ''],
      ['application/jsonl', text, ''],
      ['application/jsonl', text, ''],
    ]);
  });

  it('creates from an uploaded file: JSON with input_file_id, the options and metadata; your idempotency key', async () => {
    handler = (_req, res) => json(res, 201, batch({ metadata: { run: 'nightly' } }));
    await client.batches.create({ inputFileId: 'upl_0123' }, { completionWindow: '90m', metadata: { run: 'nightly' }, idempotencyKey: 'nightly-2026-11-28' });
    const [request] = seen;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['idempotency-key']).toBe('nightly-2026-11-28');
    expect(JSON.parse(request.body.toString('utf8'))).toEqual({ input_file_id: 'upl_0123', completion_window: '90m', metadata: { run: 'nightly' } });
    expect(request.url.search).toBe('');
  });

  it('refuses metadata beside a file sent in the request (the API takes it in the JSON form only), sending nothing', async () => {
    await expect(client.batches.create([requestLine(1)], { metadata: { a: 'b' } })).rejects.toThrow(TypeError);
    expect(seen).toHaveLength(0);
  });

  it('retries a create after a 503 with the same idempotency key and the same body', async () => {
    let calls = 0;
    handler = (_req, res) => (calls++ === 0 ? json(res, 503, errorEnvelope(503, 'service_unavailable'), { 'retry-after': '0' }) : json(res, 201, batch()));
    await expect(client.batches.create([requestLine(1)])).resolves.toMatchObject({ id: 'batch_01' });
    expect(seen).toHaveLength(2);
    expect(seen[1].headers['idempotency-key']).toBe(seen[0].headers['idempotency-key']);
    expect(seen[1].body.equals(seen[0].body)).toBe(true);
  });

  it('a file refused for its lines is a GenerationApiError with each bad line, not retried', async () => {
    const lines = [
      { line: 2, custom_id: 'shot-2', message: 'unknown model fox-9' },
      { line: 3, custom_id: null, message: 'not JSON' },
    ];
    handler = (_req, res) => json(res, 422, errorEnvelope(422, 'validation_error', { lines }));
    const error = await client.batches.create('{}\n').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GenerationApiError);
    expect(error).toMatchObject({ code: 'validation_error', status: 422, requestId: 'req_1', lines });
    expect(seen).toHaveLength(1);
    handler = (_req, res) => json(res, 404, errorEnvelope(404, 'not_found'));
    await expect(client.batches.get('nope')).rejects.toMatchObject({ code: 'not_found', lines: null });
  });

  it('reads and cancels a batch by its id (escaped in the path)', async () => {
    handler = (req, res) => json(res, 200, batch({ id: 'a/b', status: req.method === 'POST' ? 'canceling' : 'in_progress' }));
    expect((await client.batches.get('a/b')).status).toBe('in_progress');
    expect((await client.batches.cancel('a/b')).status).toBe('canceling');
    expect(seen.map((r) => `${r.method} ${r.url.pathname}`)).toEqual(['GET /api/v1/batches/a%2Fb', 'POST /api/v1/batches/a%2Fb/cancel']);
  });

  it('lists one page, and iterates every page from a cursor', async () => {
    const pages: Record<string, { data: Batch[]; next_cursor: string | null }> = {
      start: { data: [batch({ id: 'b5' }), batch({ id: 'b4' })], next_cursor: 'c2' },
      c2: { data: [batch({ id: 'b3' }), batch({ id: 'b2' })], next_cursor: 'c3' },
      c3: { data: [batch({ id: 'b1' })], next_cursor: null },
    };
    handler = (req, res) => json(res, 200, pages[req.url.searchParams.get('cursor') ?? 'start']);
    expect((await client.batches.page({ limit: 2 })).next_cursor).toBe('c2');
    const ids: string[] = [];
    for await (const b of client.batches.list({ limit: 2 })) ids.push(b.id);
    expect(ids).toEqual(['b5', 'b4', 'b3', 'b2', 'b1']);
    const fromC2: string[] = [];
    for await (const b of client.batches.list({ cursor: 'c2' })) fromC2.push(b.id);
    expect(fromC2).toEqual(['b3', 'b2', 'b1']);
    expect(seen.slice(1).map((r) => r.url.search)).toEqual(['?limit=2', '?limit=2&cursor=c2', '?limit=2&cursor=c3', '?cursor=c2', '?cursor=c3']);
  });

  it('streams the results file line by line: the first line arrives before the server has sent the rest', async () => {
    let sendRest!: () => void;
    const restAllowed = new Promise<void>((resolve) => (sendRest = resolve));
    handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      const first = JSON.stringify(lineResult(1, { outcome: 'completed', error: null }));
      res.write(`${first.slice(0, 10)}`);
      res.write(`${first.slice(10)}\n`);
      await restAllowed;
      const second = `${JSON.stringify(lineResult(4, { outcome: 'completed', error: null }))}\r\n`;
      res.write(second.slice(0, 7));
      res.end(`${second.slice(7)}\n${JSON.stringify(lineResult(9, { outcome: 'completed', error: null }))}`);
    };
    const got: number[] = [];
    for await (const result of client.batches.results('batch_01')) {
      got.push(result.line);
      expect(result.outcome).toBe('completed');
      if (got.length === 1) sendRest();
    }
    expect(got).toEqual([1, 4, 9]);
    expect(seen[0].url.pathname).toBe('/api/v1/batches/batch_01/results');
    expect(seen[0].headers.accept).toBe('application/jsonl');
  });

  it('resumes a download that dropped, giving no line twice; the errors file likewise', async () => {
    const all = [lineResult(2), lineResult(3, { outcome: 'expired' }), lineResult(5, { outcome: 'invalid', custom_id: null })];
    let downloads = 0;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      if (downloads++ === 0) {
        res.write(`${JSON.stringify(all[0])}\n${JSON.stringify(all[1]).slice(0, 12)}`);
        setTimeout(() => res.destroy(), 20);
        return;
      }
      res.end(all.map((r) => `${JSON.stringify(r)}\n`).join(''));
    };
    const got: BatchLineResult[] = [];
    for await (const result of client.batches.errors('batch_01')) got.push(result);
    expect(got).toEqual(all);
    expect(seen.map((r) => r.url.pathname)).toEqual(['/api/v1/batches/batch_01/errors', '/api/v1/batches/batch_01/errors']);

    // A body with a Content-Length that ends early, inside a line.
    seen.length = 0;
    const body = all.map((r) => `${JSON.stringify(r)}\n`).join('');
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl', 'content-length': String(body.length) });
      if (seen.length === 1) res.end(body.slice(0, JSON.stringify(all[0]).length + 15));
      else res.end(body);
    };
    got.length = 0;
    for await (const result of client.batches.errors('batch_01')) got.push(result);
    expect(got).toEqual(all);
    expect(seen).toHaveLength(2);
  });

  it('a results file of an unknown batch is the envelope', async () => {
    handler = (_req, res) => json(res, 404, errorEnvelope(404, 'not_found'));
    const iterator = client.batches.results('missing');
    await expect(iterator.next()).rejects.toMatchObject({ name: 'GenerationApiError', code: 'not_found', status: 404 });
  });

  it('waits for a batch by reading it until it has ended, and times out with code timeout', async () => {
    let reads = 0;
    handler = (_req, res) => json(res, 200, batch({ status: ++reads < 3 ? 'in_progress' : 'completed' }));
    await expect(client.batches.wait('batch_01', { pollIntervalMs: 10 })).resolves.toMatchObject({ status: 'completed' });
    expect(reads).toBe(3);
    handler = (_req, res) => json(res, 200, batch({ status: 'canceling' }));
    await expect(client.batches.wait('batch_01', { pollIntervalMs: 20, timeoutMs: 100 })).rejects.toMatchObject({ code: 'timeout', status: 0 });
  });
});
