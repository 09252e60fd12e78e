import { createServer, IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import { addCatalogueModel, eventually, FakeUpstream, http, sanitisationProblems, startFakeUpstream } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { runCliWith } from '../support/cli';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

/**
 * The durable JetStream consumer: a job that finishes while billing is down is captured once
 * billing comes back, from the event that waited in the stream.
 */
describe('distributed: an event survives the billing process being down', () => {
  let h: DistributedHarness;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    // tone-weaver-1 has 1000 ms of simulated latency: x1.5 leaves time to kill billing mid-job.
    h = await startDistributed({
      appEnv: {
        generation: {
          ENGINE_LATENCY_SCALE: '1.5',
          MESH_UPSTREAM_TOKEN: upstream.secret,
          // The fake upstream is on 127.0.0.1.
          UPSTREAM_ALLOW_PRIVATE_NETWORKS: 'true',
          CATALOGUE_REFRESH_MS: '200',
        },
      },
    });
    // mesh-remote-1 is bound in the catalogue (as an operator would) to an upstream whose job never
    // finishes: it fails on its 2.5 s deadline, which leaves time to kill billing first.
    const { key } = await h.account('pro', 0);
    const listed = await addCatalogueModel((sql, params) => h.query(sql, params), h.url, key, {
      id: 'mesh-remote-1',
      type: 'TEXT_TO_3D',
      credits: 25,
      synchronous: false,
      minPlan: 'lite',
      engine: {
        engine: 'remote',
        baseUrl: upstream.url,
        upstreamModel: 'never-finishes',
        auth: { header: 'Authorization', prefix: 'Bearer ', valueEnv: 'MESH_UPSTREAM_TOKEN' },
        timeouts: { requestMs: 1_000, totalMs: 2_500 },
        pollIntervalMs: 100,
      },
    });
    expect(listed).toMatchObject({ available: true });
  });
  afterAll(async () => {
    await h?.close();
    await upstream?.close();
  });


  const hold = async (jobId: string) =>
    (await h.query<{ amount: number; status: string }>('SELECT amount, status FROM billing.holds WHERE job_id = $1', [jobId]))[0];

  it('captures the hold after billing restarts (SIGKILL while the job runs)', async () => {
    const { key, accountId } = await h.account('pro', 100);
    const res = await http(h.url, 'POST', '/api/v1/generate', {
      key,
      body: { model: 'tone-weaver-1', prompt: 'a storm passing', type: 'TEXT_TO_AUDIO' },
    });
    expect(res.status).toBe(202);
    const jobId: string = res.body.id;

    await h.kill('billing', 'SIGKILL');
    // The reservation was made before the kill; nothing has settled it yet.
    expect(await hold(jobId)).toEqual({ amount: 10, status: 'held' });

    // The job finishes without billing; its completion event waits in the stream.
    const job = await eventually(
      async () => (await h.query<{ status: string }>('SELECT status FROM generation.jobs WHERE id = $1', [jobId]))[0],
      (j) => j.status === 'completed',
      15_000,
    );
    expect(job.status).toBe('completed');
    const outbox = await eventually(
      () => h.query<{ published_at: Date | null }>(`SELECT published_at FROM generation.outbox WHERE payload->'record'->>'id' = $1`, [jobId]),
      (rows) => rows.length === 1 && rows[0].published_at !== null,
      15_000,
    );
    expect(outbox[0].published_at).not.toBeNull();
    const jsm = await (await h.nats()).jetstreamManager();
    const consumer = await jsm.consumers.info(h.streamName, 'billing-generation_completed');
    expect(consumer.num_pending + consumer.num_ack_pending).toBeGreaterThanOrEqual(1);
    expect(await hold(jobId)).toEqual({ amount: 10, status: 'held' });

    await h.restart('billing');

    const balance = await eventually(
      async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body,
      (b) => b?.held === 0,
      45_000,
    );
    expect(balance).toMatchObject({ available: 90, held: 0 });
    expect(await hold(jobId)).toEqual({ amount: 10, status: 'captured' });
    const captures = await h.query('SELECT id FROM billing.ledger WHERE account_id = $1 AND job_id = $2 AND kind = $3', [
      accountId,
      jobId,
      'capture',
    ]);
    expect(captures).toHaveLength(1);

    const record = (await http(h.url, 'GET', `/api/v1/generations/${jobId}`, { key })).body;
    expect(record).toMatchObject({ status: 'completed', credits_charged: 10 });
  });

  it('refunds a job that failed while billing was down (SIGKILL), from the generation.failed event', async () => {
    const { key, accountId } = await h.account('pro', 100);
    const res = await http(h.url, 'POST', '/api/v1/generate', {
      key,
      body: { model: 'mesh-remote-1', prompt: 'a teapot', type: 'TEXT_TO_3D' },
    });
    expect(res.status).toBe(202);
    const jobId: string = res.body.id;
    await h.kill('billing', 'SIGKILL');
    expect(await hold(jobId)).toEqual({ amount: 25, status: 'held' });

    const job = await eventually(
      async () => (await h.query<{ status: string; error: string }>('SELECT status, error FROM generation.jobs WHERE id = $1', [jobId]))[0],
      (j) => j.status === 'failed',
      15_000,
    );
    expect(job.status).toBe('failed');
    expect(sanitisationProblems(job.error, upstream)).toEqual([]);
    const jsm = await (await h.nats()).jetstreamManager();
    const consumer = await jsm.consumers.info(h.streamName, 'billing-generation_failed');
    expect(consumer.num_pending + consumer.num_ack_pending).toBeGreaterThanOrEqual(1);
    expect(await hold(jobId)).toEqual({ amount: 25, status: 'held' });

    await h.restart('billing');
    const balance = await eventually(
      async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body,
      (b) => b?.held === 0,
      45_000,
    );
    expect(balance).toMatchObject({ available: 100, held: 0 });
    expect(await hold(jobId)).toEqual({ amount: 25, status: 'released' });
    const releases = await h.query('SELECT id FROM billing.ledger WHERE account_id = $1 AND job_id = $2 AND kind = $3', [accountId, jobId, 'release']);
    expect(releases).toHaveLength(1);
    expect((await http(h.url, 'GET', `/api/v1/generations/${jobId}`, { key })).body).toMatchObject({ status: 'failed', credits_charged: 0, output_url: null });
  });
  it('an account.low_balance event committed while billing is down is published when it is back and crosses to the webhooks and gateway processes over NATS', async () => {
    const received: Array<{ headers: IncomingHttpHeaders; raw: Buffer }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { accountId, keyId } = await h.account('pro', 100);
      const env = {
        DATABASE_URL: h.database.url,
        NATS_URL: process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222',
        NATS_SUBJECT_PREFIX: h.subjectPrefix,
        WEBHOOK_SECRET_ENCRYPTION_KEY: h.secretEncryptionKey,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      };
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/account-events`;
      const set = runCliWith(env, 'keys', 'set-webhook-url', '--account', accountId, '--key', keyId, '--url', hook, '--json');
      expect(set.code).toBe(0);
      const secret = set.json.webhook_secret as string;
      expect(runCliWith(env, 'accounts', 'set-low-balance', '--account', accountId, '--credits', '95').code).toBe(0);

      // Billing is down: the operator's debit commits the crossing and its event (the CLI publishes nothing).
      await h.kill('billing', 'SIGKILL');
      expect(runCliWith(env, 'credits', 'grant', '--account', accountId, '--amount', '-10', '--note', 'chargeback').code).toBe(0);
      const outbox = await h.query<{ id: string; published_at: Date | null }>(
        `SELECT id, published_at FROM billing.outbox WHERE payload->>'accountId' = $1`,
        [accountId],
      );
      expect(outbox).toEqual([{ id: expect.any(String), published_at: null }]);

      await h.restart('billing');
      const [event] = await eventually(
        async () => received.filter((r) => r.headers['x-service-event'] === 'account.low_balance'),
        (r) => r.length >= 1,
        30_000,
      );
      expect(verify(event.raw, event.headers, secret)).toMatchObject({ event: 'account.low_balance' });
      expect(JSON.parse(event.raw.toString('utf8'))).toMatchObject({ event: 'account.low_balance', id: outbox[0].id, account_id: accountId, threshold: 95, available: 90 });
      // It went over JetStream, with the outbox row's id as its message id, and both consumers took it.
      const jsm = await (await h.nats()).jetstreamManager();
      const message = await jsm.streams.getMessage(h.streamName, { last_by_subj: `${h.subjectPrefix}events.account.low_balance` });
      expect(message.header.get('Nats-Msg-Id')).toBe(outbox[0].id);
      for (const consumer of ['webhooks-account_low_balance', 'gateway-account_low_balance']) {
        const info = await eventually(
          () => jsm.consumers.info(h.streamName, consumer),
          (c) => c.delivered.consumer_seq >= 1 && c.num_ack_pending === 0 && c.num_pending === 0,
          15_000,
        );
        expect(info.delivered.consumer_seq).toBeGreaterThanOrEqual(1);
      }
      expect(received.filter((r) => r.headers['x-service-event'] === 'account.low_balance')).toHaveLength(1);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
