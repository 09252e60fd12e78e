import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { DatabaseChannels, MESSAGE_CONTRACT_VERSION } from '@gen/contracts';
import { DrainState } from '@gen/observability';
import { http } from '@gen/testing';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** Every log line the standalone process writes, kept for assertions. */
class LogCapture extends Writable {
  private readonly chunks: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk.toString('utf8'));
    done();
  }
  text(): string {
    return this.chunks.join('');
  }
  lines(): Array<Record<string, any>> {
    return this.text()
      .split('\n')
      .filter((l) => l.trim().length > 0)
      .map((l) => JSON.parse(l) as Record<string, any>);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Parses Prometheus text exposition into samples. */
function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** Health, metrics and logs of the standalone process, as an operator sees them (the OpenAPI document: openapi.e2e-spec.ts). */
describe('standalone: operability', () => {
  let h: StandaloneHarness;
  const logs = new LogCapture();
  let account: { accountId: string; key: string; keyId: string };

  beforeAll(async () => {
    h = await startStandaloneHarness({ LOG_LEVEL: 'info' }, { logDestination: logs });
    account = await h.account('pro', 1000);
  });
  afterAll(() => h?.close());

  describe('health', () => {
    it('/healthz answers 200 while the process lives', async () => {
      const res = await http(h.url, 'GET', '/healthz');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok', info: { process: { status: 'up' } } });
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it("/healthz and gen_build_info say which release runs: one process, each service's version and the contract", async () => {
      const version = (app: string) => (JSON.parse(readFileSync(join(__dirname, '..', '..', 'apps', app, 'package.json'), 'utf8')) as { version: string }).version;
      const services = Object.fromEntries(['gateway', 'billing', 'generation', 'webhooks'].map((s) => [s, version(s)]));
      const res = await http(h.url, 'GET', '/healthz');
      expect(res.body).toMatchObject({ status: 'ok', service: 'standalone', contract: MESSAGE_CONTRACT_VERSION, services });
      const text = await (await fetch(`${h.url}/metrics`)).text();
      for (const [service, v] of Object.entries(services)) {
        expect(samples(text)).toContainEqual(expect.objectContaining({ name: 'gen_build_info', labels: { service, version: v, contract: MESSAGE_CONTRACT_VERSION }, value: 1 }));
      }
    });

    it('/readyz checks each schema\'s database and each service behind the transport', async () => {
      const res = await http(h.url, 'GET', '/readyz');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.details).sort()).toEqual(
        [
          'lifecycle',
          'postgres:auth',
          'postgres:billing',
          'postgres:generation',
          'postgres:webhooks',
          'service:billing',
          'service:generation',
          'service:webhooks',
        ].sort(),
      );
      expect(Object.values(res.body.details).every((c: any) => c.status === 'up')).toBe(true);
    });
  });

  describe('metrics', () => {
    it('serves Prometheus text with HTTP latency by route template and status, jobs, queue and credit holds', async () => {
      const image = await http(h.url, 'POST', '/api/v1/generate', {
        key: account.key,
        body: { model: 'pixel-flux-1', prompt: 'a metric lighthouse', type: 'TEXT_TO_IMAGE' },
      });
      expect(image.status).toBe(200);
      await http(h.url, 'GET', `/api/v1/generations/${image.body.id}`, { key: account.key });
      await http(h.url, 'GET', '/api/v1/models', { key: 'gsk_live_' + 'x'.repeat(32) });
      await sleep(200); // billing captures through the event, just after the response

      const res = await fetch(`${h.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      const value = (name: string, labels: Record<string, string> = {}) => samples(text).find((m) => m.name === name && Object.entries(labels).every(([k, v]) => m.labels[k] === v))?.value;
      // Route templates, never raw ids.
      expect(value('gen_http_request_duration_seconds_count', { route: '/api/v1/generations/:id', status_code: '200', method: 'GET' })).toBeGreaterThan(0);
      expect(value('gen_http_request_duration_seconds_bucket', { route: '/api/v1/generate', status_code: '200', le: '+Inf' })).toBeGreaterThan(0);
      expect(value('gen_http_request_duration_seconds_count', { route: '/api/v1/models', status_code: '401' })).toBeGreaterThan(0);
      expect(text).not.toContain(image.body.id);
      // Jobs by state and queue (database gauges), finished jobs and queue wait (this process).
      expect(value('gen_jobs', { state: 'queued', service: 'standalone' })).toBeGreaterThanOrEqual(0);
      expect(value('gen_jobs', { state: 'processing' })).toBeGreaterThanOrEqual(0);
      expect(value('gen_job_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
      expect(value('gen_jobs_finished_total', { status: 'completed', type: 'TEXT_TO_IMAGE' })).toBeGreaterThan(0);
      expect(value('gen_job_queue_wait_seconds_count', { type: 'TEXT_TO_IMAGE' })).toBeGreaterThan(0);
      expect(value('gen_job_run_duration_seconds_count', { type: 'TEXT_TO_IMAGE', status: 'completed' })).toBeGreaterThan(0);
      expect(value('gen_outbox_pending')).toBeGreaterThanOrEqual(0);
      // Credit holds.
      expect(value('gen_billing_holds_total', { outcome: 'reserved' })).toBeGreaterThan(0);
      expect(value('gen_billing_holds_total', { outcome: 'captured' })).toBeGreaterThan(0);
      expect(value('gen_billing_credits_total', { outcome: 'captured' })).toBeGreaterThanOrEqual(4);
      expect(value('gen_billing_open_holds')).toBeGreaterThanOrEqual(0);
      // Webhook deliveries by status (database) and the dispatcher's own gauges; attempt outcomes
      // and latency are declared for the dispatcher's hook.
      for (const status of ['pending', 'succeeded', 'failed']) expect(value('gen_webhook_deliveries', { status })).toBeGreaterThanOrEqual(0);
      expect(value('gen_webhook_attempts_in_flight')).toBe(0);
      expect(value('gen_webhook_oldest_overdue_seconds')).toBeGreaterThanOrEqual(0);
      expect(text).toContain('# TYPE gen_webhook_attempt_duration_seconds histogram');
      expect(text).toContain('# TYPE gen_webhook_attempts_total counter');
      // Process metrics.
      expect(value('gen_process_resident_memory_bytes')).toBeGreaterThan(0);
    });

    it('serves every metric that the operations and Kubernetes docs, the alert rules and the KEDA queries name', async () => {
      const text = await (await fetch(`${h.url}/metrics`)).text();
      const declared = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
      const operations = readdirSync(join(__dirname, '..', '..', 'docs', 'operations')).map((f) => `docs/operations/${f}`);
      const docs = [...operations, 'k8s/components/monitoring/prometheus-rule.yaml', 'k8s/components/keda/scaled-object.yaml'].map((f) => readFileSync(join(__dirname, '..', '..', f), 'utf8')).join('\n');
      const named = new Set([...docs.matchAll(/\bgen_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, '')));
      // Families the docs name by prefix only (prom-client's process and Node.js metrics).
      for (const prefix of ['gen_process_', 'gen_nodejs_']) named.delete(prefix);
      // PostgreSQL NOTIFY channels share the prefix; they are no metrics.
      for (const channel of Object.values(DatabaseChannels)) named.delete(channel);
      const missing = [...named].filter((name) => !declared.has(name));
      expect(missing).toEqual([]);
      expect(named.size).toBeGreaterThan(20);
    });
  });

  describe('logs', () => {
    it('writes one JSON line per request with request id, account id, route, status and duration, and never a key', async () => {
      const requestId = `log-test-${Date.now()}`;
      const ok = await http(h.url, 'GET', '/api/v1/credits', { key: account.key, headers: { 'x-request-id': requestId } });
      expect(ok.status).toBe(200);
      const badKey = 'gsk_live_' + 'Zz9'.repeat(10) + 'Q1';
      const refused = await http(h.url, 'GET', '/api/v1/credits', { key: badKey, headers: { 'x-request-id': `${requestId}-401` } });
      expect(refused.status).toBe(401);
      const secretUrl = 'https://user:pa55w0rd-XYZ@hooks.example.com/in';
      const withSecrets = await http(h.url, 'POST', '/api/v1/generate', {
        key: account.key,
        headers: { 'x-request-id': `${requestId}-422`, 'x-service-signature': 'sha256=' + 'ab'.repeat(32), cookie: 'session=s3cr3t-cookie' },
        body: { model: 'pixel-flux-1', prompt: '', type: 'TEXT_TO_IMAGE', webhook_url: secretUrl },
      });
      expect(withSecrets.status).toBe(422);
      await sleep(100);

      const lines = logs.lines(); // every line is JSON (parse throws otherwise)
      const line = (id: string) => lines.find((l) => l.requestId === id && l.msg === 'request completed');
      expect(line(requestId)).toEqual(
        expect.objectContaining({
          level: 'info',
          service: 'standalone',
          requestId,
          accountId: account.accountId,
          route: '/api/v1/credits',
          status: 200,
          durationMs: expect.any(Number),
          req: { method: 'GET', path: '/api/v1/credits' },
        }),
      );
      expect(line(`${requestId}-401`)).toMatchObject({ level: 'warn', status: 401, route: '/api/v1/credits' });
      expect(line(`${requestId}-401`)?.accountId).toBeUndefined();
      expect(line(`${requestId}-422`)).toMatchObject({ status: 422, accountId: account.accountId, route: '/api/v1/generate' });
      expect(lines.filter((l) => l.requestId === requestId && l.msg === 'request completed')).toHaveLength(1);

      const text = logs.text();
      expect(text.length).toBeGreaterThan(0);
      for (const secret of [account.key, badKey, 'pa55w0rd-XYZ', 'ab'.repeat(32), 's3cr3t-cookie']) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/gsk_live_[A-Za-z0-9]{32}/);
      // Probes and scrapes are not logged one by one.
      expect(lines.some((l) => l.route === '/healthz' || l.route === '/metrics')).toBe(false);
    });
  });

  describe('draining', () => {
    it('turns readiness off and asks clients to close connections, while still serving', async () => {
      h.running.app.get(DrainState).begin();
      const ready = await http(h.url, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'error', error: { lifecycle: { status: 'down', message: 'shutting down' } } });
      expect(ready.headers.get('connection')).toBe('close');
      expect((await http(h.url, 'GET', '/healthz')).status).toBe(200);
      const models = await http(h.url, 'GET', '/api/v1/models', { key: account.key });
      expect(models.status).toBe(200);
      expect(models.headers.get('connection')).toBe('close');
    });
  });
});
