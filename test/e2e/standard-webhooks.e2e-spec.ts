import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { http } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Standard Webhooks as a key's option, end to end: the scheme chosen in the dashboard, deliveries
 * verified by the `standardwebhooks` package as published (unmodified), and a rotation whose overlap
 * carries both signatures and then only the new one; renewals and the spec's scheme keep "the old
 * secret fails at once".
 */
describe('standalone: Standard Webhooks per key, and rotation with overlap', () => {
  let h: StandaloneHarness;
  let receiver: Server;
  let hookUrl: string;
  const received: Received[] = [];
  let c: DashboardClient;
  let apiKey: string;
  let keyId: string;
  let secret: string;

  beforeAll(async () => {
    h = await startStandaloneHarness();
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    c = new DashboardClient(h.url);
    expect((await c.signUp(testEmail('stdwh'), TEST_PASSWORD)).status).toBe(201);
    const created = await c.request('POST', '/keys', { body: { name: 'hooks', webhook_url: hookUrl } });
    expect(created.status).toBe(201);
    ({ api_key: apiKey, webhook_secret: secret } = created.body);
    keyId = created.body.key.id;
    expect(created.body.key).toMatchObject({ webhook_scheme: 'service', previous_secret_until: null });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await h.close();
  });

  /** Generates an image and returns the webhook request its delivery made. */
  async function delivered(prompt: string): Promise<Received> {
    const before = received.length;
    const res = await http(h.url, 'POST', '/api/v1/generate', { key: apiKey, body: { model: 'pixel-flux-1', prompt, type: 'TEXT_TO_IMAGE' } });
    expect(res.status).toBe(200);
    for (let i = 0; i < 100 && received.length === before; i++) await new Promise((r) => setTimeout(r, 50));
    const request = received[before];
    expect(JSON.parse(request.body)).toMatchObject({ event: 'generation.completed', id: res.body.id });
    return request;
  }

  /** The headers as the standardwebhooks package takes them. */
  const standardHeaders = (request: Received) => ({
    'webhook-id': request.headers['webhook-id'] as string,
    'webhook-timestamp': request.headers['webhook-timestamp'] as string,
    'webhook-signature': request.headers['webhook-signature'] as string,
  });
  const verifiesWith = (key: string, request: Received) => {
    try {
      new Webhook(key).verify(request.body, standardHeaders(request));
      return true;
    } catch {
      return false;
    }
  };

  it("signs with the spec's X-Service-* headers by default, and no Standard Webhooks header", async () => {
    const request = await delivered('the default scheme');
    expect(() => verify(request.body, request.headers, secret)).not.toThrow();
    expect(request.headers['x-service-delivery-id']).toMatch(/^wh_/);
    expect(Object.keys(request.headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);
  });

  it('on standard: webhook-id, webhook-timestamp, webhook-signature v1, which the standardwebhooks package verifies with the secret as shown', async () => {
    const changed = await c.request('PUT', `/keys/${keyId}/webhook-scheme`, { body: { scheme: 'standard' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: keyId, webhook_scheme: 'standard' });
    const request = await delivered('the standard scheme');
    expect(request.headers['webhook-id']).toMatch(/^wh_[A-Za-z0-9]{20,}$/);
    expect(Number(request.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(secret).toMatch(/^whsec_/);
    expect(new Webhook(secret).verify(request.body, standardHeaders(request))).toMatchObject({ event: 'generation.completed' });
    // One scheme per key: the spec's signature headers are not sent beside it.
    expect(request.headers['x-service-signature']).toBeUndefined();
    expect(request.headers['x-service-event']).toBe('generation.completed');
    expect(request.headers['user-agent']).toBe('Service-Webhook/1.0');
  });

  it('rotates with an overlap: both signatures for the period, then only the new one', async () => {
    const rotated = await c.request('POST', `/keys/${keyId}/webhook-secret`, { body: { overlap_seconds: 3600 } });
    expect(rotated.status).toBe(200);
    const fresh: string = rotated.body.webhook_secret;
    expect(fresh).not.toBe(secret);
    const until = Date.parse(rotated.body.key.previous_secret_until);
    expect(until - Date.now()).toBeGreaterThan(3500_000);
    expect(until - Date.now()).toBeLessThanOrEqual(3600_000);

    const during = await delivered('during the overlap');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect({ old: verifiesWith(secret, during), fresh: verifiesWith(fresh, during) }).toEqual({ old: true, fresh: true });

    // The overlap ends (as if an hour had passed): the old secret stops signing.
    await h.running.databases.auth.query(`UPDATE auth.api_keys SET webhook_previous_secret_until = now() - interval '1 second' WHERE id = $1`, [keyId]);
    const after = await delivered('after the overlap');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect({ old: verifiesWith(secret, after), fresh: verifiesWith(fresh, after) }).toEqual({ old: false, fresh: true });
    expect((await c.request('GET', '/keys')).body.data[0].previous_secret_until).toBeNull();
    secret = fresh;
  });

  it('a renewal (no overlap) ends any overlap: the old secret fails at once, on standard too', async () => {
    const rotated = await c.request('POST', `/keys/${keyId}/webhook-secret`, { body: { overlap_seconds: 600 } });
    const renewed = await c.request('POST', `/keys/${keyId}/webhook-secret`);
    expect(renewed.status).toBe(200);
    expect(renewed.body.key.previous_secret_until).toBeNull();
    const request = await delivered('after a renewal');
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect({ before: verifiesWith(secret, request), rotated: verifiesWith(rotated.body.webhook_secret, request), renewed: verifiesWith(renewed.body.webhook_secret, request) }).toEqual({
      before: false,
      rotated: false,
      renewed: true,
    });
    secret = renewed.body.webhook_secret;
  });

  it('refuses an overlap out of range, or on a key of the spec scheme (whose receivers expect one signature), changing nothing', async () => {
    for (const overlap_seconds of [0, 86_401, 1.5, '60']) {
      const res = await c.request('POST', `/keys/${keyId}/webhook-secret`, { body: { overlap_seconds } });
      expect({ overlap_seconds, status: res.status, message: res.body.error?.message }).toEqual({
        overlap_seconds,
        status: 422,
        message: expect.stringContaining('overlap_seconds'),
      });
    }
    const rotated = await c.request('POST', `/keys/${keyId}/webhook-secret`, { body: { overlap_seconds: 600 } });
    expect(rotated.status).toBe(200);
    // Back to the spec's scheme: the overlap ends with it.
    const back = await c.request('PUT', `/keys/${keyId}/webhook-scheme`, { body: { scheme: 'service' } });
    expect(back.body).toMatchObject({ webhook_scheme: 'service', previous_secret_until: null });
    const refused = await c.request('POST', `/keys/${keyId}/webhook-secret`, { body: { overlap_seconds: 600 } });
    expect({ status: refused.status, message: refused.body.error.message }).toEqual({ status: 422, message: expect.stringContaining('standard webhook scheme') });
    const request = await delivered('back on the spec scheme');
    expect(() => verify(request.body, request.headers, rotated.body.webhook_secret)).not.toThrow();
    expect(() => verify(request.body, request.headers, secret)).toThrow();
    expect((await c.request('PUT', `/keys/${keyId}/webhook-scheme`, { body: { scheme: 'svix' } })).status).toBe(422);
  });
});
