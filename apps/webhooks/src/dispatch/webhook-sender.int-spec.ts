import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { verify } from '@gen/webhook-signature';
import { createSafeDispatcher, WebhookDestinationPolicy } from '@gen/webhook-policy';
import { WebhookSender } from './webhook-sender';

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

describe('WebhookSender', () => {
  let server: Server;
  let base: string;
  let port: number;
  const routes = new Map<string, Handler>();
  const seen: Array<{ url: string; headers: IncomingMessage['headers']; body: Buffer; remotePort?: number }> = [];
  const local: WebhookDestinationPolicy = { allowHttp: true, allowPrivate: true, allowList: [] };
  const senders: WebhookSender[] = [];
  const sender = (policy = local, timeoutMs = 400, dispatcher?: ReturnType<typeof createSafeDispatcher>) => {
    const s = new WebhookSender(policy, { timeoutMs, dispatcher });
    senders.push(s);
    return s;
  };
  const body = Buffer.from('{"event":"generation.completed","id":"x"}');
  const send = (s: WebhookSender, path: string, url = `${base}${path}`) =>
    s.send({ url, deliveryId: 'wh_' + 'a'.repeat(24), event: 'generation.completed', body, secret: 'whsec_test' });

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        seen.push({ url: req.url ?? '', headers: req.headers, body: raw, remotePort: req.socket.remotePort });
        (routes.get(req.url ?? '') ?? ((_q, r) => r.writeHead(404).end()))(req, res, raw);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    routes.set('/ok', (_q, r) => r.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'));
    routes.set('/fail', (_q, r) => r.writeHead(500).end('no'));
    routes.set('/redirect', (_q, r) => r.writeHead(302, { location: '/ok' }).end());
    routes.set('/hang', () => undefined);
    routes.set('/trickle', (_q, r) => {
      r.writeHead(200, { 'content-type': 'text/plain' });
      const t = setInterval(() => r.write('.'), 50);
      r.on('close', () => clearInterval(t));
    });
  });
  afterAll(async () => {
    await Promise.all(senders.map((s) => s.close()));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (seen.length = 0));

  it('sends exactly the spec headers, signed over the raw body, and a 2xx is success', async () => {
    const outcome = await send(sender(), '/ok');
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, errorClass: null, error: null });
    expect(seen).toHaveLength(1);
    const { headers, body: received } = seen[0]!;
    expect(received.equals(body)).toBe(true);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('Service-Webhook/1.0');
    expect(headers['x-service-event']).toBe('generation.completed');
    expect(headers['x-service-delivery-id']).toBe('wh_' + 'a'.repeat(24));
    expect(headers['x-service-timestamp']).toBe(String(Math.floor(outcome.startedAt / 1000)));
    expect(headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify(received, headers, 'whsec_test').deliveryId).toBe('wh_' + 'a'.repeat(24));
    const custom = Object.keys(headers).filter((h) => h.startsWith('x-'));
    expect(custom.sort()).toEqual(['x-service-delivery-id', 'x-service-event', 'x-service-signature', 'x-service-timestamp']);
  });

  it('marks a test event with X-Service-Test: true, and signs it like any other', async () => {
    const outcome = await sender().send({
      url: `${base}/ok`, deliveryId: 'wh_' + 'b'.repeat(24), event: 'generation.completed', body, secret: 'whsec_test', test: true,
    });
    expect(outcome).toMatchObject({ ok: true, statusCode: 200 });
    expect(seen[0]!.headers['x-service-test']).toBe('true');
    expect(verify(seen[0]!.body, seen[0]!.headers, 'whsec_test').deliveryId).toBe('wh_' + 'b'.repeat(24));
  });

  it('a non-2xx status is a failure', async () => {
    expect(await send(sender(), '/fail')).toMatchObject({ ok: false, statusCode: 500, errorClass: 'http_status' });
  });

  it('a 3xx is a failure and is not followed', async () => {
    const outcome = await send(sender(), '/redirect');
    expect(outcome).toMatchObject({ ok: false, statusCode: 302, errorClass: 'http_status' });
    expect(outcome.error).toContain('redirects are not followed');
    expect(seen.map((s) => s.url)).toEqual(['/redirect']);
  });

  it('a receiver that never answers fails at the timeout', async () => {
    const outcome = await send(sender(undefined, 400), '/hang');
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorClass: 'timeout' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(390);
    expect(outcome.durationMs).toBeLessThan(700);
  });

  it('a 200 whose body trickles past the timeout fails: the timeout covers the whole exchange', async () => {
    const outcome = await send(sender(undefined, 400), '/trickle');
    expect(outcome).toMatchObject({ ok: false, statusCode: 200, errorClass: 'timeout' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(390);
    expect(outcome.durationMs).toBeLessThan(700);
  });

  it('a refused connection is a connection failure with a sanitised message', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await send(sender(), '', `http://127.0.0.1:${closedPort}/x`);
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorClass: 'connection', error: 'Connection refused by the receiver.' });
  });

  it('keeps connections alive between deliveries', async () => {
    const s = sender();
    for (const path of ['/ok', '/ok', '/fail']) {
      await send(s, path);
      // Deliveries are not back to back on one tick; undici frees the socket on the next one.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((r) => r.remotePort)).size).toBe(1);
  });

  describe('destination policy', () => {
    const strict: WebhookDestinationPolicy = { allowHttp: true, allowPrivate: false, allowList: [] };

    it('refuses a private address literal without connecting', async () => {
      const outcome = await send(sender(strict), '/ok');
      expect(outcome).toMatchObject({ ok: false, statusCode: null, errorClass: 'forbidden_destination' });
      expect(seen).toHaveLength(0);
    });

    it('refuses http when only https is allowed', async () => {
      const outcome = await send(sender({ ...local, allowHttp: false }), '/ok');
      expect(outcome).toMatchObject({ ok: false, errorClass: 'forbidden_destination', error: 'Webhook URL must use https.' });
      expect(seen).toHaveLength(0);
    });

    it('refuses, at connect time, a name that resolves to a private address (DNS rebinding)', async () => {
      const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
      const s = sender(strict, 400, createSafeDispatcher(strict, { lookup }));
      const outcome = await send(s, '', `http://rebind.example.com:${port}/ok`);
      expect(outcome).toMatchObject({ ok: false, statusCode: null, errorClass: 'forbidden_destination' });
      expect(outcome.error).toContain('127.0.0.1');
      expect(seen).toHaveLength(0);
    });

    it('the allow-list opens a chosen address', async () => {
      const listed: WebhookDestinationPolicy = { ...strict, allowList: ['127.0.0.1/32'] };
      expect(await send(sender(listed), '/ok')).toMatchObject({ ok: true, statusCode: 200 });
    });
  });
});
