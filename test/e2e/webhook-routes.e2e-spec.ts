import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The public routes around webhooks: destination checks on POST /generate, the delivery log, redeliver. */
describe('webhook routes (standalone)', () => {
  let h: StandaloneHarness;
  let receiver: Server;
  let receiverUrl: string;
  const received: Delivery[] = [];

  beforeAll(async () => {
    h = await startStandaloneHarness();
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await h.close();
  });

  const image = { model: 'pixel-flux-1', prompt: 'a red kite', type: 'TEXT_TO_IMAGE' };
  const setSecret = (keyId: string, secret: string | null) =>
    h.running.databases.auth.query(`UPDATE api_keys SET webhook_secret = $2 WHERE id = $1`, [keyId, secret]);

  it('422 for a webhook_url when the key has no signing secret, and nothing is charged', async () => {
    const account = await h.account('pro', 100);
    const res = await http(h.url, 'POST', '/api/v1/generate', { key: account.key, body: { ...image, webhook_url: receiverUrl } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toMatch(/webhook_url: .*secret/);
    expect((await http(h.url, 'GET', '/api/v1/credits', { key: account.key })).body).toMatchObject({ available: 100, held: 0 });
  });

  it('lists the deliveries of a generation and redelivers with a new delivery id and the same body', async () => {
    const account = await h.account('pro', 100);
    const secret = 'whsec_routes_test_secret_0123456789';
    await setSecret(account.keyId, secret);
    const res = await http(h.url, 'POST', '/api/v1/generate', { key: account.key, body: { ...image, webhook_url: receiverUrl } });
    expect(res.status).toBe(200);
    const jobId: string = res.body.id;
    const waitFor = async (count: number) => {
      for (let i = 0; i < 100 && received.filter((d) => JSON.parse(d.body.toString()).id === jobId).length < count; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      return received.filter((d) => JSON.parse(d.body.toString()).id === jobId);
    };
    const [first] = await waitFor(1);
    expect(verify(first.body, first.headers, secret).deliveryId).toMatch(/^wh_[0-9A-Za-z]{20,}$/);

    let log = await http(h.url, 'GET', `/api/v1/generations/${jobId}/deliveries`, { key: account.key });
    for (let i = 0; i < 50 && log.body.data?.[0]?.status !== 'succeeded'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      log = await http(h.url, 'GET', `/api/v1/generations/${jobId}/deliveries`, { key: account.key });
    }
    expect(log.status).toBe(200);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({
      id: first.headers['x-service-delivery-id'],
      status: 'succeeded',
      url: receiverUrl,
      attempts: [expect.objectContaining({ number: 1, status_code: 204, outcome: 'succeeded' })],
    });

    const again = await http(h.url, 'POST', `/api/v1/generations/${jobId}/redeliver`, { key: account.key });
    expect(again.status).toBe(202);
    const both = await waitFor(2);
    expect(both).toHaveLength(2);
    expect(both[1].headers['x-service-delivery-id']).not.toBe(both[0].headers['x-service-delivery-id']);
    expect(both[1].body.equals(both[0].body)).toBe(true);
    expect(() => verify(both[1].body, both[1].headers, secret)).not.toThrow();
  });

  it('hides another account\'s delivery log and redelivery behind 404', async () => {
    const owner = await h.account('pro', 100);
    const other = await h.account('pro', 100);
    const res = await http(h.url, 'POST', '/api/v1/generate', { key: owner.key, body: image });
    for (const [method, path] of [
      ['GET', `/api/v1/generations/${res.body.id}/deliveries`],
      ['POST', `/api/v1/generations/${res.body.id}/redeliver`],
    ]) {
      const answer = await http(h.url, method, path, { key: other.key });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('not_found');
    }
  });
});

describe('webhook destinations refused by the deployment policy', () => {
  let h: StandaloneHarness;

  beforeAll(async () => {
    // As k8s/ sets it: the ports the egress NetworkPolicy opens to the internet.
    h = await startStandaloneHarness({ WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_ALLOWED_PORTS: '443' });
  });
  afterAll(() => h.close());

  it.each([
    ['plain http', 'http://hooks.example.com/x'],
    ['loopback', 'https://127.0.0.1/x'],
    ['private 10/8', 'https://10.1.2.3/x'],
    ['link-local metadata', 'https://169.254.169.254/latest'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/x'],
    ['credentials in the URL', 'https://user:pass@hooks.example.com/x'],
    ['a port the egress policy does not open', 'https://hooks.example.com:8443/x'],
  ])('422 for %s, before anything is charged', async (_label, url) => {
    const account = await h.account('pro', 100);
    await h.running.databases.auth.query(`UPDATE api_keys SET webhook_secret = 'whsec_x' WHERE id = $1`, [account.keyId]);
    const res = await http(h.url, 'POST', '/api/v1/generate', {
      key: account.key,
      body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE', webhook_url: url },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain('webhook_url');
    expect((await http(h.url, 'GET', '/api/v1/credits', { key: account.key })).body.available).toBe(100);
  });

  it('says which port is refused and which are open', async () => {
    const account = await h.account('pro', 100);
    await h.running.databases.auth.query(`UPDATE api_keys SET webhook_secret = 'whsec_x' WHERE id = $1`, [account.keyId]);
    const body = { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' };
    const refused = await http(h.url, 'POST', '/api/v1/generate', { key: account.key, body: { ...body, webhook_url: 'https://hooks.example.com:8443/x' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toContain('Webhook URL port 8443 is not allowed: this deployment delivers webhooks only to port 443.');
    const accepted = await http(h.url, 'POST', '/api/v1/generate', { key: account.key, body: { ...body, webhook_url: 'https://hooks.example.com:443/x' } });
    expect([200, 202]).toContain(accepted.status);
  });
});

