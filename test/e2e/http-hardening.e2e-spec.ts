import { Writable } from 'node:stream';
import { http } from '@gen/testing';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { rawExchange, RawResponse } from '../support/raw-http';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/**
 * Input an attacker sends rather than a client: bodies nested thousands deep, NUL characters,
 * encodings and charsets the server does not read, malformed HTTP straight on the socket, and clients
 * too slow to finish their headers or body. Each is answered in the envelope with a request id, and
 * none of them moves credits or stops the process.
 */
describe('HTTP hardening (standalone)', () => {
  let h: StandaloneHarness;
  let key: string;
  const HEADERS_TIMEOUT_MS = 1_500;
  const BODY_TIMEOUT_MS = 1_500;
  const logText: string[] = [];
  const logs = () =>
    logText
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logText.push(chunk.toString('utf8'));
        done();
      },
    });
    h = await startStandaloneHarness(
      { HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), HTTP_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS), LOG_LEVEL: 'info' },
      { logDestination: destination },
    );
    ({ key } = await h.account('pro', 1000));
  });
  afterAll(() => h?.close());

  const credits = async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body as { available: number; held: number };

  function expectEnvelope(res: { status: number; body?: any; json?: any; headers: any }, status: number, code: string): void {
    const body = 'json' in res ? res.json : res.body;
    expect({ status: res.status, code: body?.error?.code }).toEqual({ status, code });
    expect(body.error).toEqual({ code, status, message: expect.any(String), request_id: expect.any(String) });
    const header = typeof res.headers.get === 'function' ? res.headers.get('x-request-id') : res.headers['x-request-id'];
    expect(header).toBe(body.error.request_id);
  }

  const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  const port = () => new URL(h.url).port;
  const request = (head: string, body = '') => `${head}\r\nHost: 127.0.0.1:${port()}\r\nConnection: close\r\n\r\n${body}`;

  describe('bodies', () => {
    it.each([
      ['POST', '/api/v1/generate'],
      ['POST', '/dashboard/api/keys'],
      ['POST', '/dashboard/api/sign-up'],
    ])('refuses %s %s nested 5000 levels deep with 400 before anything recurses over it', async (method, path) => {
      const res = await http(h.url, method, path, { key, rawBody: deep(5_000), headers: { 'content-type': 'application/json' } });
      expectEnvelope(res, 400, 'bad_request');
      expect(res.body.error.message).toMatch(/nested too deeply \(at most 32 levels/);
    });

    it('accepts nesting up to the limit (and validates it as usual)', async () => {
      const res = await http(h.url, 'POST', '/api/v1/generate', { key, rawBody: `{"model":${deep(31)}}`, headers: { 'content-type': 'application/json' } });
      expectEnvelope(res, 422, 'validation_error');
    });

    it('refuses NUL in a prompt with 422 naming the field, and charges nothing', async () => {
      const before = await credits();
      const res = await http(h.url, 'POST', '/api/v1/generate', {
        key,
        body: { model: 'pixel-flux-1', prompt: 'a light\u0000house', type: 'TEXT_TO_IMAGE' },
      });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toBe('prompt: must not contain the NUL character (\\u0000).');
      expect(await credits()).toEqual(before);
    });

    it('refuses NUL in a query parameter and in a path parameter', async () => {
      const list = await http(h.url, 'GET', '/api/v1/generations?cursor=a%00b', { key });
      expectEnvelope(list, 422, 'validation_error');
      expect(list.body.error.message).toMatch(/^cursor: must not contain the NUL character/);
      const one = await http(h.url, 'GET', '/api/v1/generations/%00', { key });
      expectEnvelope(one, 422, 'validation_error');
      expect(one.body.error.message).toMatch(/^id: /);
    });

    it('refuses NUL in the dashboard: a sign-up email and a key name', async () => {
      const c = new DashboardClient(h.url, { 'x-forwarded-for': '198.51.100.77' });
      await c.session();
      const email = await c.request('POST', '/sign-up', { body: { email: 'nul\u0000@example.com', password: TEST_PASSWORD } });
      expectEnvelope(email, 422, 'validation_error');
      expect(email.body.error.message).toMatch(/^email: must not contain the NUL/);
      expect((await c.signUp(testEmail('nul'), TEST_PASSWORD)).status).toBe(201);
      const name = await c.request('POST', '/keys', { body: { name: 'ci\u0000key' } });
      expectEnvelope(name, 422, 'validation_error');
      expect(name.body.error.message).toMatch(/^name: must not contain the NUL/);
    });

    it('refuses invalid UTF-8, a charset other than UTF-8 and a Content-Encoding, and charges nothing', async () => {
      const before = await credits();
      const valid = Buffer.from('{"model":"pixel-flux-1","prompt":"caf', 'utf8');
      const invalid = Buffer.concat([valid, Buffer.from([0xe9]), Buffer.from('","type":"TEXT_TO_IMAGE"}')]);
      const post = (body: Buffer | string, headers: Record<string, string>) =>
        fetch(`${h.url}/api/v1/generate`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers }, body }).then(async (r) => ({
          status: r.status,
          headers: r.headers,
          body: JSON.parse(await r.text()),
        }));
      const latin1 = await post(invalid, { 'content-type': 'application/json' });
      expectEnvelope(latin1, 400, 'bad_request');
      expect(latin1.body.error.message).toBe('The request body is not valid UTF-8.');

      const good = '{"model":"pixel-flux-1","prompt":"cafe","type":"TEXT_TO_IMAGE"}';
      for (const charset of ['iso-8859-1', 'utf-16', '"latin1"', 'UTF-7']) {
        const res = await post(good, { 'content-type': `application/json; charset=${charset}` });
        expectEnvelope(res, 415, 'unsupported_media_type');
      }
      for (const encoding of ['gzip', 'deflate', 'br', 'identity, gzip', 'x-unknown']) {
        const res = await post(good, { 'content-type': 'application/json', 'content-encoding': encoding });
        expectEnvelope(res, 415, 'unsupported_media_type');
      }
      expect(await credits()).toEqual(before);

      // What is allowed stays allowed: UTF-8 said out loud, any case, and the identity coding.
      const ok = await post(good, { 'content-type': 'application/json; charset="UTF-8"', 'content-encoding': 'identity' });
      expect(ok.status).toBe(200);
    });

    it('refuses other content types with 415 (no form or text parser is registered)', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp']) {
        const res = await http(h.url, 'POST', '/api/v1/generate', { key, rawBody: 'model=x', headers: { 'content-type': type } });
        expectEnvelope(res, 415, 'unsupported_media_type');
      }
    });
  });

  describe('refusals before a route, on the raw socket', () => {
    const refused = async (parts: Array<string | Buffer>, status: number, code: string): Promise<RawResponse> => {
      const res = await rawExchange(h.url, parts);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expectEnvelope(res, status, code);
      return res;
    };

    it('malformed percent-encoding in a path: 400, the URL not echoed', async () => {
      const res = await refused([request(`GET /api/v1/generations/%E0%A4%A HTTP/1.1\r\nAuthorization: Bearer ${key}`)], 400, 'bad_request');
      expect(res.body).not.toContain('%E0');
    });

    it('a path parameter over 100 characters: 414, the URL not echoed', async () => {
      const long = 'x'.repeat(150);
      const res = await refused([request(`GET /api/v1/generations/${long} HTTP/1.1`)], 414, 'uri_too_long');
      expect(res.body).not.toContain(long);
      const line = logs().find((l) => l.requestId === res.json.error.request_id);
      expect(line).toMatchObject({ level: 'warn', status: 414, code: 'FST_ERR_MAX_PARAM_LENGTH', msg: 'request refused: unroutable path' });
      expect(logText.join('')).not.toContain(long);
    });

    it('headers too large: 431', async () => {
      await refused([request(`GET /api/v1/models HTTP/1.1\r\nX-Padding: ${'p'.repeat(20_000)}`)], 431, 'headers_too_large');
    });

    it.each([
      ['a bare LF inside a header value', `GET /api/v1/models HTTP/1.1\r\nX-A: one\ntwo`],
      ['a bare CR inside a header value', `GET /api/v1/models HTTP/1.1\r\nX-A: one\rtwo`],
      ['NUL in a header value', `GET /api/v1/models HTTP/1.1\r\nX-A: one\u0000two`],
      ['both Content-Length and Transfer-Encoding', `POST /api/v1/generate HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked`],
      ['two different Content-Lengths', `POST /api/v1/generate HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3`],
      ['a space in a header name', `GET /api/v1/models HTTP/1.1\r\nX A: b`],
      ['an unknown method token', `G@T /api/v1/models HTTP/1.1`],
    ])('malformed HTTP (%s): 400', async (_what, head) => {
      const res = await refused([request(head, '{}')], 400, 'bad_request');
      expect(logs().find((l) => l.requestId === res.json.error.request_id)).toMatchObject({ level: 'warn', status: 400, msg: 'request refused: unreadable HTTP' });
    });

    it('raw non-UTF-8 bytes in the path: 400', async () => {
      const head = Buffer.concat([Buffer.from('GET /api/v1/generations/'), Buffer.from([0xff, 0xfe, 0x01]), Buffer.from(` HTTP/1.1\r\nHost: x\r\n\r\n`)]);
      await refused([head], 400, 'bad_request');
    });

    it('slow headers: 408 once HTTP_HEADERS_TIMEOUT_MS has passed', async () => {
      const res = await rawExchange(h.url, ['GET /api/v1/models HTTP/1.1\r\n', { pauseMs: HEADERS_TIMEOUT_MS * 4 }, 'Host: x\r\n\r\n'], {
        timeoutMs: HEADERS_TIMEOUT_MS * 5,
        waitForClose: true,
      });
      expectEnvelope(res, 408, 'request_timeout');
      expect(res.closedByServer).toBe(true);
    });
  });

  describe('slow bodies', () => {
    it('a body trickling in is cut at HTTP_BODY_TIMEOUT_MS with 408, the connection closed, nothing charged', async () => {
      const before = await credits();
      const body = '{"model":"pixel-flux-1","prompt":"slow","type":"TEXT_TO_IMAGE"}';
      const head = `POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      // One byte every 300 ms: the whole body would take ~19 s.
      const parts: Array<string | { pauseMs: number }> = [head];
      for (const char of body) parts.push(char, { pauseMs: 300 });
      const res = await rawExchange(h.url, parts, { timeoutMs: BODY_TIMEOUT_MS * 4, waitForClose: true });
      expectEnvelope(res, 408, 'request_timeout');
      expect(res.headers.connection).toBe('close');
      expect(res.closedByServer).toBe(true);
      expect(res.elapsedMs).toBeLessThan(BODY_TIMEOUT_MS + 2_000);
      expect(await credits()).toEqual(before);
      const line = logs().find((l) => l.requestId === res.json.error.request_id && l.msg !== undefined && 'durationMs' in l);
      expect(line).toMatchObject({ level: 'warn', msg: 'request timed out', status: 408, route: '/api/v1/generate' });
    });

    it('a client that goes away mid-body is logged as aborted, without a status it was never sent', async () => {
      const head = `POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Request-Id: aborted-body-1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"mo`;
      await rawExchange(h.url, [head], { timeoutMs: 300 });
      let line: Record<string, any> | undefined;
      for (let i = 0; i < 50 && !line; i++) {
        line = logs().find((l) => l.requestId === 'aborted-body-1' && 'durationMs' in l);
        if (!line) await new Promise((r) => setTimeout(r, 50));
      }
      expect(line).toMatchObject({ level: 'warn', msg: 'request aborted', status: null });
    });

    it('200 slow bodies at once are all cut with 408, and the server answers meanwhile', async () => {
      const head = `POST /dashboard/api/sign-up HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
      const slow = Array.from({ length: 200 }, () =>
        rawExchange(h.url, [head, '{', { pauseMs: 1_000 }, '"', { pauseMs: 1_000 }, 'e', { pauseMs: 5_000 }], { timeoutMs: BODY_TIMEOUT_MS * 4, waitForClose: true }),
      );
      expect((await http(h.url, 'GET', '/healthz')).status).toBe(200);
      const results = await Promise.all(slow);
      expect(results.map((r) => r.status)).toEqual(results.map(() => 408));
      expect(results.every((r) => r.closedByServer)).toBe(true);
    });
  });

  describe('webhook URLs', () => {
    it('the dashboard (PATCH /keys/{id}) and POST /generate accept and refuse the same URLs, with the same reasons', async () => {
      const c = new DashboardClient(h.url, { 'x-forwarded-for': '198.51.100.78' });
      expect((await c.signUp(testEmail('hooks'), TEST_PASSWORD)).status).toBe(201);
      const created = await c.request('POST', '/keys', { body: { name: 'hooks', webhook_url: 'http://127.0.0.1:9/hook' } });
      expect(created.status).toBe(201);
      const apiKey: string = created.body.api_key;
      const keyId: string = created.body.key.id;
      // At most 10: the account is on the Free plan (10 requests per minute).
      const candidates = [
        // refused (the four the two checks used to disagree on first)
        'http://hooks.example.com./x',
        'http://ho%6Fks.example.com/x',
        ' http://hooks.example.com/x',
        'http://hooks.example.com/x\t',
        'http://hooks_1.example.com/x',
        'http://0x7f.0.0.1:9/x',
        'not a url',
        // accepted (this deployment allows http and private addresses)
        'http://127.0.0.1:9/other',
        'http://localhost:9/x',
      ];
      const outcomes: Array<[string, unknown, unknown]> = [];
      for (const url of candidates) {
        const patch = await c.request('PATCH', `/keys/${keyId}`, { body: { webhook_url: url } });
        const generate = await http(h.url, 'POST', '/api/v1/generate', {
          key: apiKey,
          body: { model: 'pixel-flux-1', prompt: 'hook', type: 'TEXT_TO_IMAGE', webhook_url: url },
        });
        const outcome = (r: { status: number; body: any }) => (r.status === 422 ? r.body.error.message : r.status < 300 ? 'accepted' : r.status);
        outcomes.push([url, outcome(patch), outcome(generate)]);
      }
      for (const [url, patch, generate] of outcomes) expect({ url, generate }).toEqual({ url, generate: patch });
      expect(outcomes.filter(([, patch]) => patch === 'accepted').map(([url]) => url)).toEqual(['http://127.0.0.1:9/other', 'http://localhost:9/x']);
    });
  });

  it('the process is still up and serving after all of the above', async () => {
    expect((await http(h.url, 'GET', '/readyz')).status).toBe(200);
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'still here', type: 'TEXT_TO_IMAGE' } });
    expect(res.status).toBe(200);
  });
});
