import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiKeysService } from '@gen/gateway';
import { http } from '@gen/testing';
import { newWebhookSecret, verify } from '@gen/webhook-signature';
import { OpenApiDocument, ResponseValidator } from '../support/openapi';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** A webhook receiver on 127.0.0.1 that records raw bodies; `/fail` answers 500, everything else 200. */
async function startReceiver(): Promise<{ base: string; received: Received[]; waitFor(path: string, n: number): Promise<Received[]>; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(req.url === '/fail' ? 500 : 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    async waitFor(path, n) {
      const deadline = Date.now() + 20_000;
      while (received.filter((r) => r.path === path).length < n) {
        if (Date.now() > deadline) throw new Error(`${path}: fewer than ${n} requests arrived`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received.filter((r) => r.path === path);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The public API's credit ledger (GET /api/v1/credits/ledger) and test events
 * (POST /api/v1/webhooks/test), over HTTP against standalone: auth, scopes, tenant isolation,
 * validation in the envelope, cursor paging, and a test event received and verified by a receiver.
 */
describe('credit ledger and webhook test events (standalone)', () => {
  let h: StandaloneHarness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let validator: ResponseValidator;
  const keys = () => h.running.app.get(ApiKeysService);

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startStandaloneHarness();
    validator = new ResponseValidator((await http(h.url, 'GET', '/api/v1/openapi.json')).body as OpenApiDocument);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });

  const expectEnvelope = (res: { status: number; body: any }, status: number, code: string) => {
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
    expect(res.body.error).toEqual({ code, status, message: expect.any(String), request_id: expect.any(String) });
  };
  const documented = (path: string, method: string, res: { status: number; body: unknown }) =>
    expect(validator.check(path, method, res.status, res.body)).toEqual([]);

  describe('GET /api/v1/credits/ledger', () => {
    it('lists holds, captures and grants with their generation, model and balance, newest first, in cursor pages', async () => {
      const a = await h.account('pro', 1000);
      const price = (await http(h.url, 'GET', '/api/v1/models', { key: a.key })).body.data.find((m: { id: string }) => m.id === 'pixel-flux-1').credits;
      const generated: string[] = [];
      // Billing captures a hold when it sees the generation.completed event, just after the answer:
      // each capture is awaited before the next submit, so the ledger's order is known.
      const captured = async (jobId: string) => {
        const deadline = Date.now() + 10_000;
        let page = await http(h.url, 'GET', '/api/v1/credits/ledger', { key: a.key });
        while (!page.body.data.some((e: { kind: string; generation_id: string }) => e.kind === 'capture' && e.generation_id === jobId) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          page = await http(h.url, 'GET', '/api/v1/credits/ledger', { key: a.key });
        }
        return page;
      };
      for (const prompt of ['one', 'two']) {
        const res = await http(h.url, 'POST', '/api/v1/generate', { key: a.key, body: { model: 'pixel-flux-1', prompt, type: 'TEXT_TO_IMAGE' } });
        expect(res.status).toBe(200);
        generated.push(res.body.id);
        await captured(res.body.id);
      }
      const first = await captured(generated[1]);
      expect(first.status).toBe(200);
      documented('/api/v1/credits/ledger', 'get', first);
      expect(first.headers.get('ratelimit-limit')).toBe('60');
      expect(first.body.next_cursor).toBeNull();
      expect(first.body.data.map((e: any) => [e.kind, e.amount, e.held_change, e.balance_after, e.generation_id, e.model])).toEqual([
        ['capture', 0, -price, 1000 - 2 * price, generated[1], 'pixel-flux-1'],
        ['hold', -price, price, 1000 - 2 * price, generated[1], 'pixel-flux-1'],
        ['capture', 0, -price, 1000 - price, generated[0], 'pixel-flux-1'],
        ['hold', -price, price, 1000 - price, generated[0], 'pixel-flux-1'],
        ['grant', 1000, 0, 1000, null, null],
      ]);
      const credits = await http(h.url, 'GET', '/api/v1/credits', { key: a.key });
      expect(credits.body.available).toBe(first.body.data[0].balance_after);

      // The same entries one at a time, following next_cursor.
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await http(h.url, 'GET', `/api/v1/credits/ledger?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: a.key });
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(2);
        paged.push(...res.body.data.map((e: { id: string }) => e.id));
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(paged).toEqual(first.body.data.map((e: { id: string }) => e.id));
    });

    it("never shows another account's entries", async () => {
      const a = await h.account('pro', 500);
      const b = await h.account('pro', 700);
      const res = await http(h.url, 'POST', '/api/v1/generate', { key: a.key, body: { model: 'pixel-flux-1', prompt: 'mine', type: 'TEXT_TO_IMAGE' } });
      const ledger = await http(h.url, 'GET', '/api/v1/credits/ledger', { key: b.key });
      expect(ledger.body.data).toEqual([expect.objectContaining({ kind: 'grant', amount: 700, balance_after: 700 })]);
      expect(ledger.text).not.toContain(res.body.id);
      // A's cursor used by B reads B's ledger only.
      const aPage = await http(h.url, 'GET', '/api/v1/credits/ledger?limit=1', { key: a.key });
      const bWithA = await http(h.url, 'GET', `/api/v1/credits/ledger?cursor=${aPage.body.next_cursor}`, { key: b.key });
      expect(bWithA.status).toBe(200);
      expect(bWithA.text).not.toContain(res.body.id);
    });

    it('needs a key with the read scope', async () => {
      expectEnvelope(await http(h.url, 'GET', '/api/v1/credits/ledger'), 401, 'unauthorized');
      expectEnvelope(await http(h.url, 'GET', '/api/v1/credits/ledger', { key: 'gsk_live_' + 'x'.repeat(32) }), 401, 'unauthorized');
      const a = await h.account('pro', 10);
      const generateOnly = await keys().create(a.accountId, 'generate only', ['generate']);
      const refused = await http(h.url, 'GET', '/api/v1/credits/ledger', { key: generateOnly.key });
      expectEnvelope(refused, 403, 'forbidden');
      documented('/api/v1/credits/ledger', 'get', refused);
    });

    it.each([
      ['limit=0', /limit must be at least 1/],
      ['limit=101', /limit must be at most 100/],
      ['limit=ten', /limit must be an integer/],
      ['cursor=bm9wZQ', /cursor: not a cursor returned by this endpoint/],
      ['status=completed', /^status: unknown field$/],
    ])('refuses %s with 422 in the envelope', async (query, message) => {
      const a = await h.account('pro', 10);
      const res = await http(h.url, 'GET', `/api/v1/credits/ledger?${query}`, { key: a.key });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toMatch(message);
      documented('/api/v1/credits/ledger', 'get', res);
    });
  });

  describe('POST /api/v1/webhooks/test', () => {
    /** An account whose key has a signing secret (and a default URL when given). */
    async function signingKey(defaultUrl: string | null = null) {
      const account = await h.account('pro', 100);
      const secret = newWebhookSecret();
      await keys().replaceWebhookSecret(account.accountId, account.keyId, secret);
      if (defaultUrl) await keys().setWebhookUrl(account.accountId, account.keyId, defaultUrl, null);
      return { ...account, secret };
    }

    it('sends a signed, generation.completed-shaped test event to the URL given, received and verified with the signature library', async () => {
      const k = await signingKey();
      const before = (await http(h.url, 'GET', '/api/v1/credits', { key: k.key })).body.available;
      const res = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: k.key, body: { url: `${receiver.base}/given` } });
      expect(res.status).toBe(202);
      documented('/api/v1/webhooks/test', 'post', res);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^wh_[0-9A-Za-z]{20,}$/),
        event: 'generation.completed',
        url: `${receiver.base}/given`,
        test: true,
        redelivery_of: null,
        max_attempts: 3,
      });
      const [got] = await receiver.waitFor('/given', 1);
      const verified = verify(got.raw, got.headers, k.secret);
      expect(verified).toMatchObject({ event: 'generation.completed', deliveryId: res.body.id });
      expect(got.headers['x-service-test']).toBe('true');
      expect(got.headers['user-agent']).toBe('Service-Webhook/1.0');
      const body = JSON.parse(got.raw.toString('utf8'));
      // The spec's fields in its order, then the fields added since (docs/guide/compatibility.md).
      expect(Object.keys(body)).toEqual(['event', 'id', 'status', 'type', 'model', 'output_url', 'credits_charged', 'error', 'created_at', 'completed_at', 'outputs', 'input', 'metadata']);
      expect(body).toMatchObject({ event: 'generation.completed', id: expect.stringMatching(/^test_/), status: 'completed', credits_charged: 0, error: null });
      // It is no generation of the account, and costs nothing.
      expect((await http(h.url, 'GET', `/api/v1/generations/${body.id}`, { key: k.key })).status).toBe(404);
      expect((await http(h.url, 'GET', '/api/v1/credits', { key: k.key })).body.available).toBe(before);
    });

    it("goes to the key's default webhook URL when no url is given", async () => {
      const k = await signingKey(`${receiver.base}/default`);
      const res = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: k.key, body: {} });
      expect(res.status).toBe(202);
      expect(res.body.url).toBe(`${receiver.base}/default`);
      const [got] = await receiver.waitFor('/default', 1);
      expect(verify(got.raw, got.headers, k.secret).deliveryId).toBe(res.body.id);
    });

    it('retries a failing receiver on the usual schedule, and refuses a second test of the key meanwhile (409)', async () => {
      const k = await signingKey();
      const first = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: k.key, body: { url: `${receiver.base}/fail` } });
      expect(first.status).toBe(202);
      const [attempt1] = await receiver.waitFor('/fail', 1);
      const again = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: k.key, body: { url: `${receiver.base}/given` } });
      expectEnvelope(again, 409, 'conflict');
      expect(again.body.error.message).toContain(first.body.id);
      documented('/api/v1/webhooks/test', 'post', again);
      const [, attempt2] = await receiver.waitFor('/fail', 2);
      for (const got of [attempt1, attempt2]) {
        expect(got.headers['x-service-delivery-id']).toBe(first.body.id);
        expect(got.headers['x-service-test']).toBe('true');
        expect(verify(got.raw, got.headers, k.secret).deliveryId).toBe(first.body.id);
      }
      expect(attempt2.raw.equals(attempt1.raw)).toBe(true);
    });

    it('needs a key with the generate scope', async () => {
      expectEnvelope(await http(h.url, 'POST', '/api/v1/webhooks/test', { body: {} }), 401, 'unauthorized');
      const k = await signingKey(`${receiver.base}/default`);
      const readOnly = await keys().create(k.accountId, 'read only', ['read']);
      const res = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: readOnly.key, body: {} });
      expectEnvelope(res, 403, 'forbidden');
      documented('/api/v1/webhooks/test', 'post', res);
    });

    it('refuses a key without a signing secret, or without any URL, with 422', async () => {
      const plain = await h.account('pro', 10);
      const noSecret = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: plain.key, body: { url: `${receiver.base}/given` } });
      expectEnvelope(noSecret, 422, 'validation_error');
      expect(noSecret.body.error.message).toMatch(/no webhook signing secret.*Generate one in the dashboard/);
      documented('/api/v1/webhooks/test', 'post', noSecret);
      const k = await signingKey();
      const noUrl = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: k.key, body: {} });
      expectEnvelope(noUrl, 422, 'validation_error');
      expect(noUrl.body.error.message).toMatch(/^url: this API key has no default webhook URL/);
    });

    it.each([
      ['a relative URL', { url: 'hooks.example.com/x' }, /^url: /],
      ['another scheme', { url: 'ftp://hooks.example.com/x' }, /^url: /],
      ['credentials in the URL', { url: 'http://user:secret@127.0.0.1/x' }, /^url: /],
      ['a number', { url: 42 }, /url: must be text/],
      ['a URL over 2048 characters', { url: `https://example.com/${'x'.repeat(2050)}` }, /^url: use at most 2048 characters/],
      ['an unknown field', { url: 'https://example.com/x', extra: true }, /^extra: unknown field$/],
    ])('refuses %s with 422, naming the field', async (_label, body, message) => {
      const k = await signingKey();
      const res = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: k.key, body });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toMatch(message);
    });
  });

  it('documents both endpoints in the OpenAPI document', async () => {
    const doc = (await http(h.url, 'GET', '/api/v1/openapi.json')).body as OpenApiDocument;
    expect(Object.keys(doc.paths['/api/v1/credits/ledger'].get.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '422', '429']));
    expect(Object.keys(doc.paths['/api/v1/webhooks/test'].post.responses)).toEqual(expect.arrayContaining(['202', '401', '403', '409', '422', '429']));
  });
});
