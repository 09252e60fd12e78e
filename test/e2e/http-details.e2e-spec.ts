import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { http } from '@gen/testing';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** HTTP details clients rely on: 405 with Allow, the bearer challenge on 401, one validation message per field. */
describe('standalone: HTTP details', () => {
  let h: StandaloneHarness;
  let key: string;

  beforeAll(async () => {
    h = await startStandaloneHarness();
    ({ key } = await h.account('pro', 1000));
  });
  afterAll(() => h?.close());

  const expectEnvelope = (res: { status: number; body: any; headers: Headers }, status: number, code: string) => {
    expect({ status: res.status, body: res.body }).toEqual({
      status,
      body: { error: { code, status, message: expect.any(String), request_id: res.headers.get('x-request-id') } },
    });
  };

  describe('405 for a known path with a method it does not accept', () => {
    it.each([
      ['GET', '/api/v1/generate', 'POST'],
      ['PUT', '/api/v1/generate', 'POST'],
      ['DELETE', '/api/v1/generations/00000000-0000-4000-8000-000000000000', 'GET, HEAD'],
      ['POST', '/api/v1/generations', 'GET, HEAD'],
      ['GET', '/api/v1/generations/00000000-0000-4000-8000-000000000000/cancel', 'POST'],
      ['POST', '/api/v1/models', 'GET, HEAD'],
    ])('%s %s: 405 method_not_allowed with Allow: %s', async (method, path, allow) => {
      const res = await http(h.url, method, path, { key });
      expectEnvelope(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.body.error.message).toBe(`This path does not accept ${method}; it accepts ${allow}.`);
    });

    it('needs no API key (the method is wrong whoever asks) and never echoes the path', async () => {
      const res = await http(h.url, 'GET', '/api/v1/generate');
      expectEnvelope(res, 405, 'method_not_allowed');
      expect(res.body.error.message).not.toContain('/api');
    });

    it('keeps 404 for paths no route has', async () => {
      for (const path of ['/api/v1/nope', '/api/v1/generate/extra', '/api/v1/generations/x/y/z', '/nope']) {
        const res = await http(h.url, 'DELETE', path, { key });
        expectEnvelope(res, 404, 'not_found');
        expect(res.headers.get('allow')).toBeNull();
      }
    });
  });

  describe('401 with WWW-Authenticate', () => {
    it('Bearer without an error code when no key was sent (RFC 6750, 3.1)', async () => {
      const res = await http(h.url, 'GET', '/api/v1/credits');
      expectEnvelope(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="Generation Service API"');
    });

    it('Bearer with error="invalid_token" for a wrong key', async () => {
      const res = await http(h.url, 'POST', '/api/v1/generate', { key: 'gsk_live_nope', body: {} });
      expectEnvelope(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="Generation Service API", error="invalid_token"');
    });

    it('not on the dashboard, which signs in with a cookie', async () => {
      const res = await http(h.url, 'GET', '/dashboard/api/overview');
      expectEnvelope(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBeNull();
    });
  });

  it('429 says "Retry after 1 second", never "1 seconds"', async () => {
    const free = await h.account('free', 10);
    let limited: any;
    for (let i = 0; i < 12 && !limited; i++) {
      const res = await http(h.url, 'GET', '/api/v1/credits', { key: free.key });
      if (res.status === 429) limited = res;
    }
    expectEnvelope(limited, 429, 'rate_limit_exceeded');
    const seconds = Number(limited.headers.get('retry-after'));
    expect(limited.body.error.message).toContain(`Retry after ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`);
  });

  describe('validation: one message per field, the first that applies', () => {
    it.each([
      [{}, 'model is required; prompt is required; type is required'],
      [{ model: 5, prompt: null, type: 'TEXT_TO_IMAGE' }, 'model must be a string; prompt is required'],
      [{ model: '', prompt: 'x', type: 'TEXT_TO_IMAGE' }, 'model must not be empty'],
      [{ model: 'm'.repeat(101), prompt: 'x', type: 'TEXT_TO_IMAGE' }, 'model must be at most 100 characters'],
      [{ model: 'pixel-flux-1', prompt: 42, type: 'X' }, 'prompt must be a string; type must be one of TEXT_TO_IMAGE, TEXT_TO_VIDEO, TEXT_TO_AUDIO, TEXT_TO_3D'],
      [{ model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE', seed: 1 }, 'seed: unknown field'],
    ])('%j: "%s"', async (body, message) => {
      const res = await http(h.url, 'POST', '/api/v1/generate', { key, body });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toBe(message);
    });

    /** docs/guide/errors.md's table of bodies and messages (after its `<!-- errors-doc: ... -->` marker). */
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'guide', 'errors.md'), 'utf8');
    const table = doc.split('<!-- errors-doc: POST /api/v1/generate -->')[1]?.split('\n\n')[0] ?? '';
    const rows = [...table.matchAll(/^\| `(.+)` \| `(.+)` \|$/gm)].map((m) => ({ body: JSON.parse(m[1]) as object, message: m[2] }));

    it('docs/guide/errors.md has the table, and its JSON examples show messages from it', () => {
      expect(rows.length).toBeGreaterThanOrEqual(5);
      const shown = [...doc.matchAll(/"message": "([^"]+)"/g)].map((m) => m[1]);
      expect(shown.length).toBeGreaterThan(0);
      for (const message of shown) expect(rows.map((r) => r.message)).toContain(message);
    });

    it("answers docs/guide/errors.md's examples word for word", async () => {
      const answers = [];
      for (const row of rows) {
        const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: row.body });
        answers.push({ body: row.body, status: res.status, message: res.body.error?.message });
      }
      expect(answers).toEqual(rows.map((row) => ({ body: row.body, status: 422, message: row.message })));
    });

    it('in the query too', async () => {
      const res = await http(h.url, 'GET', '/api/v1/generations?limit=abc&cursor=', { key });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toBe('limit must be an integer');
    });
  });
});
