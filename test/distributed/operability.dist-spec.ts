import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MESSAGE_CONTRACT_VERSION } from '@gen/contracts';
import { http } from '@gen/testing';
import { APP_NAMES, DistributedHarness, startDistributed } from '../support/distributed-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const appVersion = (app: string) => (JSON.parse(readFileSync(join(__dirname, '..', '..', 'apps', app, 'package.json'), 'utf8')) as { version: string }).version;

/** Health, readiness, metrics and logs of the four processes, as Kubernetes and Prometheus see them. */
describe('distributed: health, metrics and logs of every service', () => {
  let h: DistributedHarness;
  let account: { accountId: string; key: string };

  beforeAll(async () => {
    h = await startDistributed();
    account = await h.account('pro', 1000);
  });
  afterAll(() => h?.close());

  const readiness = (app: (typeof APP_NAMES)[number]) => http(h.httpUrl(app), 'GET', '/readyz');

  it('every service answers /healthz and /readyz on its own port, checking its Postgres and NATS', async () => {
    for (const app of APP_NAMES) {
      const live = await http(h.httpUrl(app), 'GET', '/healthz');
      expect({ app, status: live.status }).toEqual({ app, status: 200 });
      // The built service reads its version from dist/apps/<app>/package.json (copied by the build).
      expect(live.body).toMatchObject({ status: 'ok', service: app, version: appVersion(app), contract: MESSAGE_CONTRACT_VERSION });
      const ready = await readiness(app);
      expect({ app, status: ready.status }).toEqual({ app, status: 200 });
      expect(ready.body.details).toMatchObject({
        lifecycle: { status: 'up' },
        postgres: { status: 'up' },
        nats: { status: 'up' },
        'nats:subscriptions': { status: 'up' },
      });
    }
    expect(Object.keys((await readiness('gateway')).body.details)).toEqual(
      expect.arrayContaining(['service:billing', 'service:generation', 'service:webhooks']),
    );
  });

  it("the gateway's readiness follows its dependencies: not ready while billing is down, ready again after", async () => {
    await h.kill('billing', 'SIGKILL');
    const down = await readiness('gateway');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'error', error: { 'service:billing': { status: 'down' } } });
    expect(down.body.info).toMatchObject({ postgres: { status: 'up' }, 'service:generation': { status: 'up' } });
    // Liveness is unaffected: the orchestrator must not restart the gateway for a dependency's outage.
    expect((await http(h.url, 'GET', '/healthz')).status).toBe(200);

    await h.restart('billing');
    expect((await readiness('gateway')).status).toBe(200);
  });

  it('every service serves Prometheus metrics with its own service label', async () => {
    const image = await http(h.url, 'POST', '/api/v1/generate', {
      key: account.key,
      body: { model: 'pixel-flux-1', prompt: 'a measured lighthouse', type: 'TEXT_TO_IMAGE' },
    });
    expect(image.status).toBe(200);
    await sleep(500); // billing captures from the JetStream event

    const scrape = async (app: (typeof APP_NAMES)[number]) => {
      const res = await fetch(`${h.httpUrl(app)}/metrics`);
      expect(res.status).toBe(200);
      return res.text();
    };
    const gateway = await scrape('gateway');
    expect(gateway).toMatch(/gen_http_request_duration_seconds_count\{[^}]*service="gateway"[^}]*route="\/api\/v1\/generate"[^}]*status_code="200"[^}]*\} [1-9]/);
    const generation = await scrape('generation');
    expect(generation).toMatch(/gen_jobs_finished_total\{status="completed",type="TEXT_TO_IMAGE",service="generation"\} [1-9]/);
    expect(generation).toMatch(/gen_jobs\{state="queued",service="generation"\} \d+/);
    expect(generation).toMatch(/gen_job_queue_wait_seconds_count\{[^}]*service="generation"[^}]*\} [1-9]/);
    const billing = await scrape('billing');
    expect(billing).toMatch(/gen_billing_holds_total\{outcome="reserved",service="billing"\} [1-9]/);
    expect(billing).toMatch(/gen_billing_holds_total\{outcome="captured",service="billing"\} [1-9]/);
    expect(billing).toMatch(/gen_billing_open_holds\{service="billing"\} \d+/);
    const webhooks = await scrape('webhooks');
    expect(webhooks).toMatch(/gen_webhook_deliveries\{status="pending",service="webhooks"\} \d+/);
    expect(webhooks).toContain('# TYPE gen_webhook_attempts_total counter');
    expect(webhooks).toMatch(/gen_process_cpu_seconds_total\{service="webhooks"\}/);
  });

  it('logs one JSON line per request with request id and account id, and never the API key', async () => {
    const requestId = `dist-log-${Date.now()}`;
    expect((await http(h.url, 'GET', '/api/v1/credits', { key: account.key, headers: { 'x-request-id': requestId } })).status).toBe(200);
    await sleep(200);
    const output = h.logs();
    const line = output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.requestId === requestId && l.msg === 'request completed');
    expect(line).toMatchObject({ service: 'gateway', accountId: account.accountId, route: '/api/v1/credits', status: 200 });
    expect(output).not.toContain(account.key);
  });
});
