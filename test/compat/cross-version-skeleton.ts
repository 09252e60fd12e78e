import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { eventually, http, HttpResult } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { AppName, DistributedHarness, startDistributed } from '../support/distributed-harness';
import { runCli, runCliFrom } from '../support/cli';

/** One mix of versions: the services that run the previous release's build, and where it is. */
export interface VersionMix {
  label: string;
  /** The services that run from a previous release's checkout, and that checkout's folder. */
  previous: Partial<Record<AppName, string>>;
  /** The newer release migrates its schemas before anything starts (every schema, or none: each app's own at start). */
  migrateFirst: boolean;
}

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const ROOT = join(__dirname, '..', '..');
const CANCELED = 'Canceled at your request. Your credits were refunded.';

/**
 * The walking skeleton a customer and an operator would notice first, against one mix of versions
 * (test/compat/*.compat-spec.ts): dashboard sign-up and a key with a webhook URL; a synchronous
 * image (200, then read back); an asynchronous video (202, then completed, with its signed webhook
 * delivered); 402; 404; a cancel with its refund; and the credits exact at the end.
 */
export function crossVersionSkeleton(mix: VersionMix): void {
  describe(mix.label, () => {
    let h: DistributedHarness;
    let receiver: Server;
    const delivered: Delivery[] = [];
    let hook = '';
    let key = '';
    let secret = '';

    beforeAll(async () => {
      receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          delivered.push({ headers: req.headers, body: Buffer.concat(chunks) });
          res.writeHead(200).end('ok');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      h = await startDistributed({
        roots: mix.previous,
        // The demo engines at their real pace: an image in 150 ms, a video in 3 s (time to cancel it).
        appEnv: { generation: { ENGINE_LATENCY_SCALE: '1' } },
        beforeStart: (databaseUrl) => {
          if (!mix.migrateFirst) return;
          const migrated = runCli(databaseUrl, 'migrate');
          if (migrated.code !== 0) throw new Error(`the newer release's migrations failed: ${migrated.stderr}`);
        },
      });
    }, 180_000);
    afterAll(async () => {
      receiver?.closeAllConnections();
      await new Promise((resolve) => receiver?.close(resolve));
      await h?.close();
    });

    const generate = (k: string, model: string, type: string) => http(h.url, 'POST', '/api/v1/generate', { key: k, body: { model, prompt: 'a lighthouse at dusk', type } });
    const read = (k: string, id: string) => http(h.url, 'GET', `/api/v1/generations/${id}`, { key: k });
    const credits = async (k: string) => (await http(h.url, 'GET', '/api/v1/credits', { key: k })).body;
    const expectEnvelope = (res: HttpResult, status: number, code: string) => {
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
      expect(res.body.error.message.length).toBeGreaterThan(0);
    };

    it('signs up in the dashboard and creates a key with a webhook URL and its signing secret', async () => {
      const c = new DashboardClient(h.url);
      expect((await c.signUp(testEmail('compat'), TEST_PASSWORD)).status).toBe(201);
      const created = await c.request('POST', '/keys', { body: { name: 'compat', webhook_url: hook } });
      expect(created.status).toBe(201);
      expect(created.body.api_key).toMatch(/^gsk_live_[0-9A-Za-z]{32}$/);
      expect(created.body.webhook_secret).toMatch(/^whsec_/);
      ({ api_key: key, webhook_secret: secret } = created.body);
      expect(await credits(key)).toMatchObject({ plan: 'free', available: 100, held: 0 });
      // Pro, as an operator would set it (billing over NATS, the gateways told at once): the free
      // plan's 10 requests a minute would not last the polling below. The operator's CLI is the one
      // released with the gateway (it writes the auth schema's audit log as that gateway does).
      const [{ account_id: accountId }] = await h.query<{ account_id: string }>("SELECT account_id FROM auth.api_keys WHERE name = 'compat'");
      const env = { DATABASE_URL: h.database.url, NATS_URL: process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222', NATS_SUBJECT_PREFIX: h.subjectPrefix };
      const upgraded = runCliFrom(mix.previous.gateway ?? ROOT, env, 'plans', 'set', '--account', accountId, '--plan', 'pro');
      expect({ code: upgraded.code, stderr: upgraded.code === 0 ? '' : upgraded.stderr }).toEqual({ code: 0, stderr: '' });
      expect(await eventually(() => credits(key), (b) => b.plan === 'pro', 10_000, 100)).toMatchObject({ plan: 'pro', available: 100 });
    });

    it('answers a synchronous image with 200 and the finished record, and reads it back', async () => {
      const res = await generate(key, 'pixel-flux-1', 'TEXT_TO_IMAGE');
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBe(`/api/v1/generations/${res.body.id}`);
      expect(res.body).toMatchObject({ status: 'completed', model: 'pixel-flux-1', credits_charged: 4, error: null });
      expect((await fetch(res.body.output_url)).status).toBe(200);
      const again = await read(key, res.body.id);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res.body);
    });

    it('answers an asynchronous video with 202, completes it, and delivers its signed webhook', async () => {
      const res = await generate(key, 'motion-lite-1', 'TEXT_TO_VIDEO');
      expect(res.status).toBe(202);
      expect(res.headers.get('location')).toBe(`/api/v1/generations/${res.body.id}`);
      const done = await eventually(async () => (await read(key, res.body.id)).body, (r) => r.status === 'completed', 30_000, 200);
      expect(done).toMatchObject({ credits_charged: 40, error: null });
      const delivery = await eventually(
        async () => delivered.find((d) => JSON.parse(d.body.toString('utf8')).id === res.body.id),
        (d) => d !== undefined,
        20_000,
        100,
      );
      expect(delivery).toBeDefined();
      expect(delivery!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(verify(delivery!.body, delivery!.headers, secret).deliveryId).toMatch(/^wh_[0-9A-Za-z]{20,}$/);
      expect(JSON.parse(delivery!.body.toString('utf8'))).toMatchObject({ event: 'generation.completed', id: res.body.id, status: 'completed', credits_charged: 40 });
    });

    it('cancels a running job and refunds its hold', async () => {
      const res = await generate(key, 'motion-lite-1', 'TEXT_TO_VIDEO');
      expect(res.status).toBe(202);
      const canceled = await http(h.url, 'POST', `/api/v1/generations/${res.body.id}/cancel`, { key });
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ status: 'failed', error: CANCELED, credits_charged: 0 });
      // 100 - 4 (image) - 40 (video); the canceled video's 40 came back.
      const settled = await eventually(() => credits(key), (b) => b.held === 0, 20_000, 100);
      expect(settled).toMatchObject({ available: 56, held: 0 });
    });

    it('answers 402 below the model minimum and creates nothing', async () => {
      const poor = await h.account('pro', 3);
      expectEnvelope(await generate(poor.key, 'pixel-flux-1', 'TEXT_TO_IMAGE'), 402, 'insufficient_credits');
      expect(await h.query('SELECT id FROM generation.jobs WHERE account_id = $1', [poor.accountId])).toEqual([]);
      expect(await credits(poor.key)).toMatchObject({ available: 3, held: 0 });
    });

    it("answers 404 for an unknown id and for another account's generation", async () => {
      expectEnvelope(await read(key, randomUUID()), 404, 'not_found');
      const other = await h.account('pro', 100);
      const theirs = await generate(other.key, 'pixel-flux-1', 'TEXT_TO_IMAGE');
      expect(theirs.status).toBe(200);
      expectEnvelope(await read(key, theirs.body.id), 404, 'not_found');
    });

    // Last: it spends credits the tests above count on.
    it('runs a batch where the gateway and generation both know batches, and says why not where one does not', async () => {
      const lines = ['shoe-1', 'shoe-2'].map((id) => JSON.stringify({ custom_id: id, body: { model: 'pixel-flux-1', prompt: `a red shoe ${id}`, type: 'TEXT_TO_IMAGE' } }));
      const res = await fetch(`${h.url}/api/v1/batches`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/jsonl' }, body: lines.join('\n') });
      const body = (await res.json()) as any;
      if (mix.previous.gateway) {
        // The older gateway knows neither the route nor the JSONL media type (its body parsers answer
        // before routing): the spec's 415 envelope, nothing created.
        expect({ status: res.status, code: body.error?.code }).toEqual({ status: 415, code: 'unsupported_media_type' });
        return;
      }
      if (mix.previous.generation) {
        expect({ status: res.status, code: body.error?.code }).toEqual({ status: 503, code: 'service_unavailable' });
        expect(body.error.message).toMatch(/generation/);
        return;
      }
      expect(res.status).toBe(201);
      const done = await eventually(async () => (await http(h.url, 'GET', `/api/v1/batches/${body.id}`, { key })).body, (b) => b.status === 'completed', 30_000, 200);
      expect(done.request_counts).toMatchObject({ total: 2, completed: 2, failed: 0 });
      if (mix.previous.webhooks) return;
      // The key's default webhook URL is the batch's destination: batch.completed, signed with the key's secret.
      const delivery = await eventually(
        async () => delivered.find((d) => JSON.parse(d.body.toString('utf8')).event === 'batch.completed'),
        (d) => d !== undefined,
        20_000,
        100,
      );
      expect(verify(delivery!.body, delivery!.headers, secret).deliveryId).toMatch(/^wh_/);
      expect(JSON.parse(delivery!.body.toString('utf8'))).toMatchObject({ event: 'batch.completed', batch: { id: body.id, status: 'completed' } });
    });
  });
}
