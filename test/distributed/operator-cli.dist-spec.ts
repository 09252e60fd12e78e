import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { http } from '@gen/testing';
import { createTestDatabase } from '@gen/testing';
import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { runCli } from '../support/cli';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cli = runCli;

/** The operator CLI against the distributed deployment's database, with the services running. */
describe('distributed: operator CLI', () => {
  let h: DistributedHarness;

  beforeAll(async () => {
    // Video jobs take 3 s x 20 = 60 s here: long enough to be "stuck" while the test fails them.
    h = await startDistributed({ appEnv: { generation: { ENGINE_LATENCY_SCALE: '20' } } });
  });
  afterAll(() => h?.close());

  it('documents itself and uses its exit codes: 0 help, 2 usage errors', () => {
    const help = cli(h.database.url, '--help');
    expect(help.code).toBe(0);
    for (const command of ['migrate', 'jobs list', 'jobs inspect', 'jobs fail', 'keys revoke', 'credits grant', 'plans set']) {
      expect(help.stdout).toContain(command);
    }
    expect(help.stdout).toContain('Exit codes');
    const one = cli(h.database.url, 'jobs', 'fail', '--help');
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('--force');
    expect(one.stdout).not.toContain('credits grant');
    expect(cli(h.database.url, 'nope').code).toBe(2);
    const missing = cli(h.database.url, 'jobs', 'fail', '--job', '00000000-0000-4000-8000-000000000000');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing --reason');
    expect(cli(h.database.url, 'jobs', 'list', '--older-than', 'soon').code).toBe(2);
  });

  it('migrate applies every schema on an empty database, then finds nothing to do', async () => {
    const db = await createTestDatabase('migrate');
    try {
      const first = cli(db.url, 'migrate', '--json');
      expect(first.code).toBe(0);
      for (const schema of ['auth', 'billing', 'generation', 'webhooks']) expect(first.json.applied[schema].length).toBeGreaterThan(0);
      const again = cli(db.url, 'migrate', '--json');
      expect(again.code).toBe(0);
      expect(again.json).toEqual({ applied: { auth: [], billing: [], generation: [], webhooks: [] } });
    } finally {
      await db.drop();
    }
  });

  it('finds a stuck job, refuses to fail a live one without --force, fails it with a refund, and refuses a finished one', async () => {
    const { key } = await h.account('pro', 100);
    const submitted = await http(h.url, 'POST', '/api/v1/generate', {
      key,
      body: { model: 'motion-lite-1', prompt: 'a very slow storm', type: 'TEXT_TO_VIDEO' },
    });
    expect(submitted.status).toBe(202);
    const jobId: string = submitted.body.id;
    let listed: any;
    for (let i = 0; i < 50; i++) {
      listed = cli(h.database.url, 'jobs', 'list', '--status', 'processing', '--older-than', '0s', '--json').json;
      if (listed?.some((j: { id: string }) => j.id === jobId)) break;
      await sleep(200);
    }
    expect(listed.map((j: { id: string }) => j.id)).toContain(jobId);
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body).toMatchObject({ available: 60, held: 40 });

    const inspected = cli(h.database.url, 'jobs', 'inspect', '--job', jobId, '--json');
    expect(inspected.code).toBe(0);
    expect(inspected.json).toMatchObject({ job: { id: jobId, status: 'processing', attempts: 1 }, leaseExpired: false, hold: { amount: 40, status: 'held' } });

    const refused = cli(h.database.url, 'jobs', 'fail', '--job', jobId, '--reason', 'engine hung', '--json');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--force');

    const failed = cli(h.database.url, 'jobs', 'fail', '--job', jobId, '--reason', 'engine hung', '--force', '--json');
    expect(failed.code).toBe(0);
    expect(failed.json).toMatchObject({ job: { id: jobId, status: 'failed' }, reason: 'engine hung' });
    expect(failed.json.events).toEqual([expect.objectContaining({ pattern: 'generation.failed' })]);

    // The generation service's relay publishes the event; billing refunds the hold.
    let credits: any;
    for (let i = 0; i < 100; i++) {
      credits = (await http(h.url, 'GET', '/api/v1/credits', { key })).body;
      if (credits.held === 0) break;
      await sleep(200);
    }
    expect(credits).toMatchObject({ available: 100, held: 0 });
    const record = (await http(h.url, 'GET', `/api/v1/generations/${jobId}`, { key })).body;
    expect(record).toMatchObject({ status: 'failed', credits_charged: 0, output_url: null });
    expect(record.error).toContain('refunded');
    const after = cli(h.database.url, 'jobs', 'inspect', '--job', jobId, '--json');
    expect(after.json).toMatchObject({ hold: { status: 'released' }, events: [expect.objectContaining({ published_at: expect.any(String) })] });

    const again = cli(h.database.url, 'jobs', 'fail', '--job', jobId, '--reason', 'twice');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already failed');
    expect(cli(h.database.url, 'jobs', 'inspect', '--job', '00000000-0000-4000-8000-000000000000').code).toBe(1);
  });

  it('deliveries retry --since sends again the webhooks that failed once the endpoint is fixed', async () => {
    // A receiver that fails until it is "fixed".
    let healthy = false;
    const received: Array<{ deliveryId: string; body: string }> = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ deliveryId: String(req.headers['x-service-delivery-id']), body });
        res.writeHead(healthy ? 200 : 500).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const dashboard = new DashboardClient(h.url);
      expect((await dashboard.signUp(testEmail('retry'), TEST_PASSWORD)).status).toBe(201);
      const created = await dashboard.request('POST', '/keys', { body: { name: 'hooks', webhook_url: hook } });
      expect(created.status).toBe(201);
      const key: string = created.body.api_key;
      const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'a failing hook', type: 'TEXT_TO_IMAGE' } });
      expect(res.status).toBe(200);

      // Three attempts (0 s, +2 s, +6 s), all 500: the delivery fails.
      let failed: Array<{ id: string; status: string }> = [];
      for (let i = 0; i < 100; i++) {
        failed = await h.query(`SELECT id, status FROM webhooks.deliveries WHERE job_id = $1`, [res.body.id]);
        if (failed[0]?.status === 'failed') break;
        await sleep(200);
      }
      expect(failed).toEqual([{ id: expect.stringMatching(/^wh_/), status: 'failed' }]);
      expect(received).toHaveLength(3);

      const dry = cli(h.database.url, 'deliveries', 'retry', '--since', '10m', '--dry-run', '--json');
      expect(dry.code).toBe(0);
      expect(dry.json.deliveries).toEqual([
        expect.objectContaining({ job_id: res.body.id, failed_delivery_id: failed[0].id, status: 'would_queue', destination: new URL(hook).origin }),
      ]);
      expect(cli(h.database.url, 'deliveries', 'retry', '--since', 'yesterday').code).toBe(2);

      healthy = true;
      const retried = cli(h.database.url, 'deliveries', 'retry', '--since', '10m', '--json');
      expect(retried.code).toBe(0);
      const [queued] = retried.json.deliveries;
      expect(queued).toMatchObject({ job_id: res.body.id, status: 'queued', delivery_id: expect.stringMatching(/^wh_/) });
      expect(queued.delivery_id).not.toBe(failed[0].id);

      // The running webhooks service sends it: same body, the new delivery id; then nothing is left to retry.
      for (let i = 0; i < 100 && received.length < 4; i++) await sleep(100);
      expect(received).toHaveLength(4);
      expect(received[3]).toEqual({ deliveryId: queued.delivery_id, body: received[0].body });
      for (let i = 0; i < 50; i++) {
        const [row] = await h.query<{ status: string }>(`SELECT status FROM webhooks.deliveries WHERE id = $1`, [queued.delivery_id]);
        if (row.status === 'succeeded') break;
        await sleep(100);
      }
      expect(cli(h.database.url, 'deliveries', 'retry', '--since', '10m', '--json').json.deliveries).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
