import { randomUUID } from 'node:crypto';
import { AddBatchLinesReply, BatchLinePayload, BatchLinesReply, BatchView, Subjects } from '@gen/contracts';
import { http } from '@gen/testing';
import { NatsRpcClient } from '@gen/transport';
import { runCli } from '../support/cli';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Batches with every service its own process and two generation replicas, the gateway's messages sent
 * over NATS as the gateway will send them: both replicas' feeders admit lines, never beyond the
 * account's parallel slots together; each line's credits are held in billing over NATS and charged
 * once; the batch ends once and its batch.completed goes out on JetStream.
 */
describe('distributed: batches in generation (two replicas)', () => {
  let h: DistributedHarness;
  let rpc: NatsRpcClient;

  beforeAll(async () => {
    h = await startDistributed({ replicas: { generation: 2 }, appEnv: { generation: { ENGINE_LATENCY_SCALE: '0.3', JOB_POLL_INTERVAL_MS: '100' } } });
    rpc = new NatsRpcClient({
      url: process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222',
      service: 'dist-batches-spec',
      subjectPrefix: h.subjectPrefix,
      streamName: h.streamName,
      requestTimeoutMs: 10_000,
    });
  });
  afterAll(async () => {
    await rpc?.onApplicationShutdown();
    await h?.close();
  });

  it('runs a batch within the account\'s slots across replicas, charges each completed line once and publishes batch.completed', async () => {
    const { accountId, key, keyId } = await h.account('pro', 1000);
    expect(runCli(h.database.url, 'plans', 'set', '--account', accountId, '--plan', 'enterprise', '--rpm', '100000', '--parallel', '2').code).toBe(0);
    const batchId = randomUUID();
    const total = 12;
    const lines: BatchLinePayload[] = Array.from({ length: total }, (_, i) => ({
      line: i + 1,
      customId: `shot-${i + 1}`,
      model: 'pixel-flux-1',
      prompt: `product shot ${i + 1}`,
      type: 'TEXT_TO_IMAGE',
      input: {},
      metadata: {},
      credits: 2,
      minimumCredits: 2,
      webhookUrl: null,
    }));
    await rpc.request<AddBatchLinesReply>(Subjects.generationBatchCreate, {
      batchId, accountId, apiKeyId: keyId, plan: 'enterprise', parallelLimit: 2, completionWindow: '1h', completionWindowSeconds: 3600,
      webhookUrl: null, metadata: {}, totalLines: total,
    });
    expect(await rpc.request(Subjects.generationBatchLines, { batchId, accountId, lines: lines.slice(0, 7), invalid: [] })).toEqual({ received: 7 });
    expect(await rpc.request(Subjects.generationBatchLines, { batchId, accountId, lines: lines.slice(5), invalid: [] })).toEqual({ received: total });
    expect(await rpc.request<BatchView>(Subjects.generationBatchSeal, { batchId, accountId })).toMatchObject({ status: 'in_progress' });

    let most = 0;
    let view: BatchView;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [load] = await h.query<{ n: string }>(`SELECT count(*) AS n FROM generation.jobs WHERE account_id = $1 AND status IN ('queued', 'processing')`, [accountId]);
      most = Math.max(most, Number(load.n));
      view = await rpc.request<BatchView>(Subjects.generationBatchGet, { batchId, accountId });
      if (view.status === 'completed' || Date.now() > deadline) break;
      await sleep(30);
    }
    expect(view.status).toBe('completed');
    expect(view.request_counts).toMatchObject({ total, completed: total, failed: 0 });
    expect(view.credits_charged).toBe(2 * total);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
    // Both replicas fed it (each takes what is free when it looks), and no line ran twice.
    const jobs = await h.query<{ n: string }>(`SELECT count(*) AS n FROM generation.jobs WHERE account_id = $1`, [accountId]);
    expect(Number(jobs[0].n)).toBe(total);

    const results = await rpc.request<BatchLinesReply>(Subjects.generationBatchResults, { batchId, accountId, file: 'results', afterLine: 0, limit: 1000 });
    expect(results.data.map((r) => r.custom_id)).toEqual(lines.map((l) => l.customId));
    expect(results.data.every((r) => r.generation?.status === 'completed' && r.generation.credits_charged === 2)).toBe(true);

    const credits = async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body as { available: number; held: number };
    for (let i = 0; i < 100 && (await credits()).held > 0; i++) await sleep(100);
    expect(await credits()).toMatchObject({ available: 1000 - 2 * total, held: 0 });

    const outbox = await h.query<{ id: string; published_at: Date | null }>(
      `SELECT id, published_at FROM generation.outbox WHERE pattern = 'batch.completed' AND payload->'batch'->>'id' = $1`,
      [batchId],
    );
    expect(outbox).toHaveLength(1);
    for (let i = 0; i < 50 && !(await h.query(`SELECT 1 FROM generation.outbox WHERE id = $1 AND published_at IS NOT NULL`, [outbox[0].id])).length; i++) await sleep(100);
    const jsm = await (await h.nats()).jetstreamManager();
    const message = await jsm.streams.getMessage(h.streamName, { last_by_subj: `${h.subjectPrefix}events.batch.completed` });
    expect(message.header.get('Nats-Msg-Id')).toBe(outbox[0].id);
    expect(new TextDecoder().decode(message.data)).toContain(batchId);
  });
});
