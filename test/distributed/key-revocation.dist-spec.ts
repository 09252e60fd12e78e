import { http, HttpResult } from '@gen/testing';
import { runCli, runCliWith } from '../support/cli';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

/**
 * Gateways verify API keys from memory. A change made anywhere (the dashboard of one gateway, the
 * operator CLI with NATS) must still hold on the very next request on every gateway replica: the
 * `auth.api-key-changed` broadcast leaves before the change is answered. Without NATS, the CLI's
 * change reaches them within the cache TTL.
 */
describe('distributed: a revoked or changed API key, on every gateway at once', () => {
  let h: DistributedHarness;
  let dashboard: DashboardClient;

  beforeAll(async () => {
    h = await startDistributed({ replicas: { gateway: 2 } });
    dashboard = new DashboardClient(h.urls[0]);
    expect((await dashboard.signUp(testEmail('revocation'), TEST_PASSWORD)).status).toBe(201);
  });
  afterAll(() => h?.close());

  const natsEnv = () => ({
    DATABASE_URL: h.database.url,
    NATS_URL: process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222',
    NATS_SUBJECT_PREFIX: h.subjectPrefix,
  });
  /** One request to each gateway, one after the other (the second after the first's answer). */
  const onEachGateway = async (key: string, order = [0, 1]): Promise<HttpResult[]> => {
    const results: HttpResult[] = [];
    for (const i of order) results.push(await http(h.urls[i], 'GET', '/api/v1/credits', { key }));
    return results;
  };
  const statuses = (results: HttpResult[]) => results.map((r) => r.status);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('revoked in the dashboard served by one gateway: 401 on the next request on both', async () => {
    const created = await dashboard.request('POST', '/keys', { body: { name: 'to revoke' } });
    expect(created.status).toBe(201);
    const key: string = created.body.api_key;
    // Both gateways have verified the key (and keep it in memory).
    expect(statuses(await onEachGateway(key))).toEqual([200, 200]);
    expect((await dashboard.request('DELETE', `/keys/${created.body.key.id}`)).status).toBe(204);
    expect(statuses(await onEachGateway(key, [1, 0]))).toEqual([401, 401]);
  });

  it('revoked with the operator CLI, which tells the gateways over NATS: 401 on the next request on both', async () => {
    const account = await h.account('pro', 100);
    expect(statuses(await onEachGateway(account.key))).toEqual([200, 200]);
    const revoked = runCliWith(natsEnv(), 'keys', 'revoke', '--account', account.accountId, '--key', account.keyId);
    expect({ code: revoked.code, stderr: revoked.stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/not told/) });
    expect(statuses(await onEachGateway(account.key, [1, 0]))).toEqual([401, 401]);
  });

  it('revoked with the CLI without NATS: every gateway refuses the key within its cache TTL', async () => {
    const account = await h.account('pro', 100);
    expect(statuses(await onEachGateway(account.key))).toEqual([200, 200]);
    const revoked = runCli(h.database.url, 'keys', 'revoke', '--account', account.accountId, '--key', account.keyId);
    expect(revoked.code).toBe(0);
    // The TTL is 10 s; allow a loaded machine plenty more.
    let last: number[] = [];
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
      last = statuses(await onEachGateway(account.key));
      if (last.every((s) => s === 401)) break;
    }
    expect(last).toEqual([401, 401]);
  });

  it("a webhook URL set in one gateway's dashboard applies to the next submit on the other", async () => {
    const created = await dashboard.request('POST', '/keys', { body: { name: 'webhooks later' } });
    const key: string = created.body.api_key;
    const submit = () =>
      http(h.urls[1], 'POST', '/api/v1/generate', {
        key,
        body: { model: 'pixel-flux-1', prompt: 'a kite', type: 'TEXT_TO_IMAGE', webhook_url: 'http://127.0.0.1:9/hook' },
      });
    // No signing secret yet: a webhook_url is refused (and gateway 2 now holds the key in memory).
    const before = await submit();
    expect(before.status).toBe(422);
    expect(before.body.error.message).toMatch(/secret/);
    const changed = await dashboard.request('PATCH', `/keys/${created.body.key.id}`, { body: { webhook_url: 'http://127.0.0.1:9/default' } });
    expect(changed.status).toBe(200);
    expect(changed.body.webhook_secret).toMatch(/^whsec_/);
    expect([200, 202]).toContain((await submit()).status);
  });

  it("a plan changed with the CLI over NATS applies on both gateways' next request", async () => {
    const account = await h.account('pro', 100);
    for (const r of await onEachGateway(account.key)) expect(r.headers.get('ratelimit-limit')).toBe('60');
    const changed = runCliWith(natsEnv(), 'plans', 'set', '--account', account.accountId, '--plan', 'pro', '--rpm', '200');
    expect(changed.code).toBe(0);
    for (const r of await onEachGateway(account.key, [1, 0])) expect(r.headers.get('ratelimit-limit')).toBe('200');
  });
});
