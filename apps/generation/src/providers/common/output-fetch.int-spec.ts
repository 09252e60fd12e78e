import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ASSETS, dataUri } from '@gen/testing';
import { OutputFetcher } from './output-fetch';
import { UpstreamFailure } from './upstream-failure';
import { parseRetryAfter, UpstreamHttp } from './upstream-http';

describe('OutputFetcher', () => {
  let server: Server;
  let api: string;
  const seen: Array<{ path: string; authorization?: string; host?: string }> = [];
  const http = new UpstreamHttp({ connectTimeoutMs: 500, requestTimeoutMs: 1_000, allowPrivateNetworks: true });

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization, host: req.headers.host });
      if (req.url === '/png') return void res.writeHead(200).end(ASSETS.png);
      if (req.url === '/to-png') return void res.writeHead(302, { location: '/png' }).end();
      if (req.url === '/to-elsewhere') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await http.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => (seen.length = 0));

  const fetcher = (outputOrigins: string[] = [], maxOutputBytes = 1024 * 1024) =>
    new OutputFetcher(http, { apiOrigin: api, apiBase: `${api}/v1`, outputOrigins, maxOutputBytes, apiHeaders: () => ({ authorization: 'Bearer secret' }) });
  const kind = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (e: unknown) => (e instanceof UpstreamFailure ? e.kind : String(e)),
    );
  const signal = new AbortController().signal;

  it('downloads from the API origin with the credential, following a redirect on it', async () => {
    expect((await fetcher().fetch(`${api}/to-png`, 'TEXT_TO_IMAGE', signal)).data?.equals(ASSETS.png)).toBe(true);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer secret', 'Bearer secret']);
  });

  it('resolves a relative URL against the API base', async () => {
    expect((await fetcher().fetch('/png', 'TEXT_TO_IMAGE', signal)).extension).toBe('png');
  });

  it('refuses a redirect to an origin not allowed (a metadata address here), without contacting it', async () => {
    expect(await kind(fetcher().fetch(`${api}/to-elsewhere`, 'TEXT_TO_IMAGE', signal))).toBe('output_unavailable');
    expect(seen).toHaveLength(1);
  });

  it('stops following redirects after 3 hops', async () => {
    expect(await kind(fetcher().fetch(`${api}/loop`, 'TEXT_TO_IMAGE', signal))).toBe('output_unavailable');
    expect(seen).toHaveLength(4);
  });

  it('a wildcard origin allows subdomains only, of the same scheme and port', async () => {
    const f = fetcher(['https://*.cdn.example']);
    // Allowed, then refused by the destination policy (unresolvable here): proves the origin check passed.
    expect(await kind(f.fetch('https://a.cdn.example/x.png', 'TEXT_TO_IMAGE', signal))).toBe('unavailable');
    expect(await kind(f.fetch('https://cdn.example/x.png', 'TEXT_TO_IMAGE', signal))).toBe('output_unavailable');
    expect(await kind(f.fetch('http://a.cdn.example/x.png', 'TEXT_TO_IMAGE', signal))).toBe('output_unavailable');
    expect(await kind(f.fetch('https://a.cdn.example:8443/x.png', 'TEXT_TO_IMAGE', signal))).toBe('output_unavailable');
    expect(await kind(f.fetch('https://evilcdn.example/x.png', 'TEXT_TO_IMAGE', signal))).toBe('output_unavailable');
  });

  it('decodes data URIs (base64 and percent-encoded) and checks what they hold', async () => {
    expect((await fetcher().fetch(dataUri('png'), 'TEXT_TO_IMAGE', signal)).data?.equals(ASSETS.png)).toBe(true);
    const percent = `data:application/octet-stream,${[...ASSETS.wav].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`;
    expect((await fetcher().fetch(percent, 'TEXT_TO_AUDIO', signal)).extension).toBe('wav');
    expect(await kind(fetcher().fetch('data:image/png;base64,!!!', 'TEXT_TO_IMAGE', signal))).toBe('malformed');
    expect(await kind(fetcher([], 16).fetch(dataUri('png'), 'TEXT_TO_IMAGE', signal))).toBe('output_invalid');
    expect(await kind(fetcher().fetch(dataUri('png'), 'TEXT_TO_AUDIO', signal))).toBe('output_invalid');
  });

  it('refuses URLs with credentials or other schemes', async () => {
    expect(await kind(fetcher().fetch(`http://u:p@${api.slice(7)}/png`, 'TEXT_TO_IMAGE', signal))).toBe('malformed');
    expect(await kind(fetcher().fetch('file:///etc/passwd', 'TEXT_TO_IMAGE', signal))).toBe('malformed');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-20T10:00:00Z');
  it.each<[string | null, number | null]>([
    ['1', 1_000],
    ['0', 0],
    [' 30 ', 30_000],
    ['Fri, 20 Nov 2026 10:00:05 GMT', 5_000],
    ['Fri, 20 Nov 2026 09:00:00 GMT', 0],
    ['86400', 600_000],
    ['soon', null],
    ['-1', null],
    [null, null],
  ])('%p -> %p ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
