import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Subjects, WebhookSecretReply, WebhookSecretRequest } from '@gen/contracts';
import { http } from '@gen/testing';
import { NatsRpcClient } from '@gen/transport';
import { verify } from '@gen/webhook-signature';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

/**
 * The dashboard across processes: sign-up opens the billing account over NATS, and a key's webhook
 * secret set in the dashboard reaches the webhooks service (auth.webhook-secret.get over NATS)
 * decrypted, while the gateway's table holds it encrypted. The playground, the ledger (billing.ledger,
 * billing.usage) and test events (webhooks.test.send) over NATS.
 */
describe('distributed: dashboard', () => {
  let h: DistributedHarness;
  let rpc: NatsRpcClient;

  beforeAll(async () => {
    h = await startDistributed({ appEnv: { gateway: { SIGNUP_CREDITS: '75' } } });
    rpc = new NatsRpcClient({
      url: process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222',
      service: 'dist-dashboard-spec',
      subjectPrefix: h.subjectPrefix,
      streamName: h.streamName,
      requestTimeoutMs: 10_000,
    });
  });
  afterAll(async () => {
    await rpc?.onApplicationShutdown();
    await h?.close();
  });

  it('signs up (billing over NATS), creates a key with a webhook secret, and serves the secret to the dispatcher', async () => {
    const c = new DashboardClient(h.url);
    expect((await c.signUp(testEmail('dist'), TEST_PASSWORD)).status).toBe(201);
    expect((await c.request('GET', '/overview')).body).toMatchObject({ plan: 'free', credits: { available: 75, held: 0 } });

    const created = await c.request('POST', '/keys', { body: { name: 'dist', webhook_url: 'http://127.0.0.1:9/hook' } });
    expect(created.status).toBe(201);
    const secret: string = created.body.webhook_secret;
    expect(secret).toMatch(/^whsec_/);
    const reply = await rpc.request<WebhookSecretReply, WebhookSecretRequest>(Subjects.authWebhookSecretGet, { apiKeyId: created.body.key.id });
    expect(reply).toEqual({ secret, scheme: 'service', previousSecret: null });
    const [row] = await h.query<{ webhook_secret: string }>('SELECT webhook_secret FROM auth.api_keys WHERE id = $1', [created.body.key.id]);
    expect(row.webhook_secret.startsWith('v1.')).toBe(true);

    const key = created.body.api_key;
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body).toMatchObject({ plan: 'free', available: 75 });
    expect((await c.request('DELETE', `/keys/${created.body.key.id}`)).status).toBe(204);
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).status).toBe(401);
  });

  it('generates from the playground, lists it in the ledger and usage, and sends a signed test event', async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const c = new DashboardClient(h.url);
      expect((await c.signUp(testEmail('dist-product'), TEST_PASSWORD)).status).toBe(201);
      const created = await c.request('POST', '/keys', { body: { name: 'dist', webhook_url: hook } });
      const keyId: string = created.body.key.id;

      const made = await c.request('POST', `/keys/${keyId}/generate`, { body: { model: 'pixel-flux-1', prompt: 'across processes', type: 'TEXT_TO_IMAGE' } });
      expect([200, 202]).toContain(made.status);
      const deadline = Date.now() + 20_000;
      let ledger = await http(h.url, 'GET', '/api/v1/credits/ledger', { key: created.body.api_key });
      while (ledger.body.data?.[0]?.kind !== 'capture' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        ledger = await http(h.url, 'GET', '/api/v1/credits/ledger', { key: created.body.api_key });
      }
      expect(ledger.body.data.map((e: { kind: string }) => e.kind)).toEqual(['capture', 'hold', 'grant']);
      expect(ledger.body.data[0]).toMatchObject({ generation_id: made.body.id, model: 'pixel-flux-1' });
      const usage = await c.request('GET', '/usage/summary?days=7');
      expect(usage.body.models).toEqual([expect.objectContaining({ model: 'pixel-flux-1', generations: 1 })]);

      const sent = await http(h.url, 'POST', '/api/v1/webhooks/test', { key: created.body.api_key, body: {} });
      expect(sent.status).toBe(202);
      const until = Date.now() + 20_000;
      let test: (typeof received)[number] | undefined;
      while (!test && Date.now() < until) {
        test = received.find((r) => r.headers['x-service-delivery-id'] === sent.body.id);
        if (!test) await new Promise((r) => setTimeout(r, 100));
      }
      expect(test?.headers['x-service-test']).toBe('true');
      expect(verify(test!.body, test!.headers, created.body.webhook_secret).deliveryId).toBe(sent.body.id);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
