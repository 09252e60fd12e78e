import { Subjects, WebhookSecretReply, WebhookSecretRequest } from '@gen/contracts';
import { http } from '@gen/testing';
import { NatsRpcClient } from '@gen/transport';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

/**
 * The dashboard across processes: sign-up opens the billing account over NATS, and a key's webhook
 * secret set in the dashboard reaches the webhooks service (auth.webhook-secret.get over NATS)
 * decrypted, while the gateway's table holds it encrypted.
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
    expect(reply).toEqual({ secret, defaultWebhookUrl: 'http://127.0.0.1:9/hook' });
    const [row] = await h.query<{ webhook_secret: string }>('SELECT webhook_secret FROM auth.api_keys WHERE id = $1', [created.body.key.id]);
    expect(row.webhook_secret.startsWith('v1.')).toBe(true);

    const key = created.body.api_key;
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body).toMatchObject({ plan: 'free', available: 75 });
    expect((await c.request('DELETE', `/keys/${created.body.key.id}`)).status).toBe(204);
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).status).toBe(401);
  });
});
