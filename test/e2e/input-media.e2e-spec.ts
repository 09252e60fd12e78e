import { existsSync, readdirSync } from 'node:fs';
import { createServer, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CATALOGUE, Engine, EngineRequest, InstantEngine, JobJanitorService, ModelDefinitionInput } from '@gen/generation';
import { GatewayJanitorService } from '@gen/gateway';
import { eventually, http } from '@gen/testing';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** A PNG as far as any sniffing goes: the signature, then `size` bytes in all. */
function png(size: number, fill = 7): Buffer {
  const bytes = Buffer.alloc(size, fill);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  return bytes;
}
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 1)]);
const MAX_BYTES = 1024 * 1024; // UPLOAD_MAX_MB=1

/** An engine that reads each media input it is given, as a provider would, and records what it read. */
class MediaReadingEngine implements Engine {
  readonly name = 'media-reading';
  readonly seen: Array<{ input: Readonly<Record<string, unknown>>; image: Buffer | null }> = [];
  private readonly instant = new InstantEngine();

  async generate(request: EngineRequest) {
    const url = request.input.image;
    const image = typeof url === 'string' ? Buffer.from(await (await fetch(url)).arrayBuffer()) : null;
    this.seen.push({ input: request.input, image });
    const [output] = await this.instant.generate(request);
    const count = typeof request.input.num_outputs === 'number' ? request.input.num_outputs : 1;
    return Array.from({ length: count }, () => output);
  }
}

const MEDIA_MODEL: ModelDefinitionInput = testModel({
  id: 'media-1',
  engine: 'media-reading',
  credits: 3,
  minimumCredits: 5,
  inputs: {
    type: 'object',
    properties: {
      image: { type: 'string', format: 'uri', description: 'The picture to start from.' },
      num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
    },
    additionalProperties: false,
  } as unknown as ModelDefinitionInput['inputs'],
  priceMultipliers: ['num_outputs'],
});

/**
 * A customer's media server, on loopback (allow-listed for this test as `127.0.0.1`, the one address
 * the service may reach): answers of every kind a media URL can give, and how many bytes each sent.
 */
function mediaServer(): Promise<{ server: Server; base: string; sent: Map<string, number> }> {
  const sent = new Map<string, number>();
  const endless = (res: ServerResponse, path: string, first: Buffer, declared?: number) => {
    res.writeHead(200, { 'content-type': 'image/png', ...(declared !== undefined && { 'content-length': String(declared) }) });
    let count = 0;
    const chunk = Buffer.alloc(64 * 1024, 3);
    // Lazily: only as fast as the reader takes it, so what was sent is what was read (plus the socket's buffers).
    const pump = () => {
      while (!res.destroyed) {
        const data = count === 0 ? first : chunk;
        count += data.length;
        sent.set(path, count);
        if (!res.write(data)) return void res.once('drain', pump);
      }
    };
    res.on('close', () => sent.set(path, count));
    pump();
  };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    switch (path) {
      case '/fox.png':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(png(2048, 9));
      case '/page':
        return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><h1>Log in</h1>');
      case '/disguised.png':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end('<!doctype html><h1>Log in</h1>');
      case '/two-gigabytes.png':
        return endless(res, path, png(16), 2 * 1024 * 1024 * 1024);
      case '/endless.png':
        return endless(res, path, png(16));
      case '/to-metadata':
        return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      case '/to-private':
        return void res.writeHead(302, { location: 'http://10.1.2.3/fox.png' }).end();
      case '/to-localhost':
        return void res.writeHead(301, { location: `http://localhost:${(server.address() as AddressInfo).port}/fox.png` }).end();
      default:
        return void res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent })),
  );
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('input media: uploads and media URLs (standalone)', () => {
  let h: StandaloneHarness;
  let media: Awaited<ReturnType<typeof mediaServer>>;
  const engine = new MediaReadingEngine();

  beforeAll(async () => {
    media = await mediaServer();
    h = await startStandaloneHarness(
      // Media URLs keep to rules of their own: here http, and of the private addresses only the media
      // server's. The webhook allow-list names it too, and must not be what lets it through.
      { UPLOAD_MAX_MB: '1', MEDIA_FETCH_ALLOW_HTTP: 'true', MEDIA_FETCH_ALLOW_PRIVATE_NETWORKS: 'false', MEDIA_FETCH_ALLOW_LIST: '127.0.0.1', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_ALLOW_LIST: '127.0.0.1' },
      { models: [...CATALOGUE, MEDIA_MODEL], engines: { 'media-reading': engine } },
    );
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((resolve) => media?.server.close(resolve));
  });

  const upload = (key: string, body: Buffer | string, contentType?: string) =>
    fetch(`${h.url}/api/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...(contentType !== undefined && { 'content-type': contentType }) },
      body,
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, any> }));
  const submit = (key: string, input: Record<string, unknown>) =>
    http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'media-1', prompt: 'the fox, in snow', type: 'TEXT_TO_IMAGE', input } });
  const available = async (key: string) => (await http(h.url, 'GET', '/api/v1/credits', { key })).body.available as number;
  const uploadsOf = async (accountId: string) =>
    Number((await h.running.databases.auth.query(`SELECT count(*) AS n FROM auth.uploads WHERE account_id = $1`, [accountId]))[0].n);
  const stored = () => filesUnder(join(h.dataDir, 'outputs')).length;

  describe('POST /api/v1/uploads', () => {
    it('stores the body, answers {id, url, expires_at}; the id or the url is a media input, and the engine reads the file at the url it is given', async () => {
      const { key } = await h.account('free', 100);
      const file = png(5000);
      const res = await upload(key, file, 'image/png');
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.stringMatching(/^upl_[0-9a-f]{24}$/), url: expect.stringMatching(new RegExp(`^${h.url}/cdn/[0-9a-f]{2}/[0-9a-f]{32}\\.png$`)), expires_at: expect.any(String), content_type: 'image/png', bytes: 5000 });
      const hours = (Date.parse(res.body.expires_at) - Date.now()) / 3_600_000;
      expect(hours).toBeGreaterThan(23.9);
      expect(hours).toBeLessThanOrEqual(24);
      expect(Buffer.from(await (await fetch(res.body.url)).arrayBuffer())).toEqual(file);

      for (const reference of [res.body.id, res.body.url]) {
        const before = engine.seen.length;
        const generated = await submit(key, { image: reference });
        expect(generated.status).toBe(200);
        // The input as applied names the file by the URL the provider was given.
        expect(generated.body).toMatchObject({ status: 'completed', input: { image: res.body.url, num_outputs: 1 } });
        expect(engine.seen.slice(before)).toEqual([{ input: { image: res.body.url, num_outputs: 1 }, image: file }]);
      }
    });

    it.each<[string, Buffer | string, string | undefined, number, string, RegExp]>([
      ['no Content-Type', png(100), undefined, 415, 'unsupported_media_type', /^Send the file as the body, with its media type as Content-Type: one of image\/png, image\/jpeg/],
      ['a type the service does not take', '<html></html>', 'text/html', 415, 'unsupported_media_type', /^Send the file as the body/],
      ['JSON', '{"image": "x"}', 'application/json', 415, 'unsupported_media_type', /^Send the file as the body/],
      ['bytes of another type than the Content-Type', JPEG, 'image/png', 422, 'validation_error', /^The file is image\/jpeg, not the image\/png its Content-Type says\.$/],
      ['bytes of no media type', 'just text, not an image', 'image/png', 422, 'validation_error', /^The file is not image\/png/],
      ['a file over UPLOAD_MAX_MB', png(MAX_BYTES + 1), 'image/png', 413, 'payload_too_large', /^An upload is at most 1 MB \(UPLOAD_MAX_MB\)\.$/],
    ])('%s: refused in the envelope, nothing stored', async (_name, body, contentType, status, code, message) => {
      const { key, accountId } = await h.account('free', 100);
      const files = stored();
      const res = await upload(key, body, contentType);
      expect(res.status).toBe(status);
      expect(res.body.error).toMatchObject({ code, status });
      expect(res.body.error.message).toMatch(message);
      expect(await uploadsOf(accountId)).toBe(0);
      expect(stored()).toBe(files);
    });

    it('needs an API key with the generate scope', async () => {
      expect((await fetch(`${h.url}/api/v1/uploads`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: png(100) })).status).toBe(401);
    });

    it('an answer given before the file was read to its end closes the connection (the client is not left sending 8 MB no one reads)', async () => {
      const { key } = await h.account('free', 100);
      for (const [authorization, body, status] of [
        ['Bearer not-a-key', png(8 * 1024 * 1024), 401],
        [`Bearer ${key}`, Buffer.alloc(8 * 1024 * 1024), 422],
        [`Bearer ${key}`, png(8 * 1024 * 1024), 413],
      ] as const) {
        const res = await fetch(`${h.url}/api/v1/uploads`, { method: 'POST', headers: { authorization, 'content-type': 'image/png' }, body });
        expect({ status: res.status, connection: res.headers.get('connection') }).toEqual({ status, connection: 'close' });
        await res.text();
      }
    });

    it('the janitor deletes an upload past its end (and an hour of grace): the object and the row', async () => {
      const { key, accountId } = await h.account('free', 100);
      const res = await upload(key, png(300), 'image/png');
      const objectKey = new URL(res.body.url).pathname.replace(/^\/cdn\//, '');
      await h.running.databases.auth.query(`UPDATE auth.uploads SET expires_at = now() - interval '2 hours' WHERE id = $1`, [res.body.id]);
      const sweep = await h.running.app.get(GatewayJanitorService).sweep();
      expect(sweep.uploads).toBeGreaterThanOrEqual(1);
      expect(await uploadsOf(accountId)).toBe(0);
      expect(existsSync(join(h.dataDir, 'outputs', objectKey))).toBe(false);
      expect((await fetch(res.body.url)).status).toBe(404);
    });
  });

  describe('a media URL in input', () => {
    it('an https (here: allow-listed http) URL is fetched into an upload of the account; the provider reads that copy', async () => {
      const { key, accountId } = await h.account('free', 100);
      const before = engine.seen.length;
      const res = await submit(key, { image: `${media.base}/fox.png` });
      expect(res.status).toBe(200);
      const given = res.body.input.image as string;
      expect(given.startsWith(`${h.url}/cdn/`)).toBe(true);
      expect(engine.seen.slice(before)).toEqual([{ input: { image: given, num_outputs: 1 }, image: png(2048, 9) }]);
      expect(await uploadsOf(accountId)).toBe(1);
    });
  });

  describe('bad input: answered in the envelope, nothing stored, nothing held', () => {
    let other: { key: string; body: Record<string, any> };
    let expired: { key: string; accountId: string; body: Record<string, any> };
    beforeAll(async () => {
      const owner = await h.account('free', 100);
      other = { key: owner.key, body: (await upload(owner.key, png(400), 'image/png')).body };
      const late = await h.account('free', 100);
      expired = { ...late, body: (await upload(late.key, png(400), 'image/png')).body };
      await h.running.databases.auth.query(`UPDATE auth.uploads SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.body.id]);
    });

    const cases: Array<[string, () => Promise<{ key?: string; input: Record<string, unknown> }>, RegExp]> = [
      ['a media URL to a private address', async () => ({ input: { image: 'http://10.0.0.7/fox.png' } }), /^input\.image: the URL must not point to a private network address \(10\.0\.0\.7\)\.$/],
      ['a media URL to the cloud metadata address', async () => ({ input: { image: 'http://169.254.169.254/latest/meta-data/' } }), /^input\.image: the URL must not point to a cloud metadata address/],
      ['a media URL to the local machine by name', async () => ({ input: { image: 'http://localhost:9/fox.png' } }), /^input\.image: the URL must not point to the local machine/],
      ['a media URL that redirects to the metadata address', async () => ({ input: { image: `${media.base}/to-metadata` } }), /^input\.image: the URL must not point to a cloud metadata address/],
      ['a media URL that redirects to a private address', async () => ({ input: { image: `${media.base}/to-private` } }), /^input\.image: the URL must not point to a private network address \(10\.1\.2\.3\)/],
      ['a media URL that redirects to localhost', async () => ({ input: { image: `${media.base}/to-localhost` } }), /^input\.image: the URL must not point to the local machine/],
      ['a media URL that returns HTML', async () => ({ input: { image: `${media.base}/page` } }), /^input\.image: the URL answered text\/html, not an image, video, audio or 3D file$/],
      ['a media URL that returns HTML as image/png', async () => ({ input: { image: `${media.base}/disguised.png` } }), /^input\.image: the file is not an image, video, audio or 3D file/],
      ['a media URL of 2 GB (declared)', async () => ({ input: { image: `${media.base}/two-gigabytes.png` } }), /^input\.image: the file is 2147483648 bytes; at most 1048576 are taken$/],
      ['a media URL that never ends', async () => ({ input: { image: `${media.base}/endless.png` } }), /^input\.image: the file is larger than 1048576 bytes$/],
      ['a media URL that is not found', async () => ({ input: { image: `${media.base}/missing.png` } }), /^input\.image: the URL answered HTTP 404$/],
      ["another account's upload, by id", async () => ({ input: { image: other.body.id } }), /^input\.image: no upload of this account has this id/],
      ["another account's upload, by URL", async () => ({ input: { image: other.body.url } }), /^input\.image: no upload of this account has this URL/],
      ['an upload id that does not exist', async () => ({ input: { image: `upl_${'0'.repeat(24)}` } }), /^input\.image: no upload of this account has this id/],
      ['an expired upload', async () => ({ key: expired.key, input: { image: expired.body.id } }), /^input\.image: this upload expired at .*; upload the file again$/],
      ['a media value that is no URL', async () => ({ input: { image: 'file:///etc/passwd' } }), /^input\.image: must be an https URL or an upload/],
    ];

    it.each(cases)('%s', async (_name, make, message) => {
      const made = await make();
      const account = made.key ? { key: made.key, accountId: expired.accountId } : await h.account('free', 100);
      const balance = await available(account.key);
      const uploads = await uploadsOf(account.accountId);
      const files = stored();
      const res = await submit(account.key, made.input);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_error', status: 422 });
      expect(res.body.error.message).toMatch(message);
      expect(await available(account.key)).toBe(balance);
      expect((await http(h.url, 'GET', '/api/v1/generations', { key: account.key })).body.data).toEqual([]);
      expect(await uploadsOf(account.accountId)).toBe(uploads);
      expect(stored()).toBe(files);
    });

    it('a media URL of 2 GB or one that never ends is not read to its end: the fetch stops at the cap', async () => {
      // The two cases above ran: what the server managed to send is the cap and the sockets' buffers, not gigabytes.
      expect(media.sent.get('/two-gigabytes.png') ?? 0).toBeLessThan(8 * 1024 * 1024);
      expect(media.sent.get('/endless.png')).toBeGreaterThan(MAX_BYTES);
      expect(media.sent.get('/endless.png')).toBeLessThan(MAX_BYTES + 8 * 1024 * 1024);
    });

    it('a 5 MB string in input is refused before it is read as JSON (413), nothing held', async () => {
      const { key } = await h.account('free', 100);
      const res = await submit(key, { image: `https://example.com/${'x'.repeat(5 * 1024 * 1024)}` });
      expect(res.status).toBe(413);
      expect(res.body.error).toMatchObject({ code: 'payload_too_large', status: 413 });
      expect(await available(key)).toBe(100);
      expect((await http(h.url, 'GET', '/api/v1/generations', { key })).body.data).toEqual([]);
    });
  });

  describe('prices that follow inputs, against minimum_credits', () => {
    it("minimum_credits is checked against the multiplied price: the 402 names the larger of the two; what is charged is the computed price", async () => {
      // credits 3 × num_outputs, minimum_credits 5: one output needs 5 available (charges 3), two need 6.
      const poor = await h.account('free', 4);
      const one = await submit(poor.key, { num_outputs: 1 });
      expect(one.status).toBe(402);
      expect(one.body.error.message).toContain('needs at least 5 available credits; this account has 4');
      const five = await h.account('free', 5);
      const two = await submit(five.key, { num_outputs: 2 });
      expect(two.status).toBe(402);
      expect(two.body.error.message).toContain('needs at least 6 available credits; this account has 5');
      expect(await available(five.key)).toBe(5);
      const ok = await submit(five.key, { num_outputs: 1 });
      expect(ok.body).toMatchObject({ status: 'completed', credits_charged: 3 });
      await eventually(async () => available(five.key), (n) => n === 2);
    });
  });

  describe('several outputs after their retention', () => {
    it('every output of a multi-output job answers 410 once its retention ended, the second as the first', async () => {
      const { key } = await h.account('free', 100);
      const res = await submit(key, { num_outputs: 3 });
      expect(res.body.outputs).toHaveLength(3);
      for (const output of res.body.outputs) expect((await fetch(output.url)).status).toBe(200);
      await h.running.databases.generation.query(`UPDATE generation.jobs SET output_expires_at = now() - interval '1 second' WHERE id = $1`, [res.body.id]);
      expect(await h.running.app.get(JobJanitorService).deleteExpiredOutputs()).toBeGreaterThanOrEqual(1);
      for (const output of res.body.outputs) {
        const gone = await fetch(output.url);
        expect(gone.status).toBe(410);
        expect(((await gone.json()) as { error: unknown }).error).toMatchObject({ code: 'gone', status: 410 });
      }
    });
  });
});
