import { addCatalogueModel, ASSETS, FakeReplicate, http, startFakeReplicate } from '@gen/testing';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

interface JobRow {
  status: string;
  attempts: number;
  upstream_ref: string | null;
  lease_owner: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Never pay twice, with real processes: a job on a Replicate-bound model whose generation process is
 * killed (-9) while the job waits on the prediction. The prediction's id was stored on the job before
 * it was parked, so the restarted process's poll scheduler checks the same prediction: one prediction
 * created upstream, not two, and the job completes (and is charged) once. The distributed suite's
 * end-to-end run of a provider adapter.
 */
describe('distributed: a provider job survives kill -9 of the generation process without a second submit', () => {
  let h: DistributedHarness;
  let fake: FakeReplicate;
  const LEASE_MS = 2_000;
  const PRICE = 7;

  beforeAll(async () => {
    fake = await startFakeReplicate();
    h = await startDistributed({
      appEnv: {
        generation: {
          // The fake is on 127.0.0.1: a deployment allows private upstreams only when told to.
          UPSTREAM_ALLOW_PRIVATE_NETWORKS: 'true',
          REPLICATE_API_TOKEN: fake.token,
          JOB_LEASE_MS: String(LEASE_MS),
          JOB_MAX_ATTEMPTS: '2',
          CATALOGUE_REFRESH_MS: '200',
        },
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}: ${JSON.stringify(value)}`);
      await sleep(100);
    }
  }
  const job = async (id: string) =>
    (await h.query<JobRow>('SELECT status, attempts, upstream_ref, lease_owner FROM generation.jobs WHERE id = $1', [id]))[0];
  const polls = (predictionId: string) => fake.calls('GET', new RegExp(`^/v1/predictions/${predictionId}$`)).length;

  it('kill -9 while parked: the restarted process polls the same prediction; one submit upstream, one charge', async () => {
    const { key, accountId } = await h.account('pro', 100);
    const listed = await addCatalogueModel((sql, params) => h.query(sql, params), h.url, key, {
      id: 'pixel-replicate-held',
      type: 'TEXT_TO_IMAGE',
      credits: PRICE,
      synchronous: false,
      minPlan: 'free',
      engine: {
        engine: 'replicate',
        baseUrl: fake.url,
        upstreamModel: 'fake/held',
        tokenEnv: 'REPLICATE_API_TOKEN',
        outputOrigins: [fake.cdnUrl],
        pollIntervalMs: 100,
        timeouts: { totalMs: 60_000 },
      },
    });
    expect(listed).toMatchObject({ available: true });

    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-replicate-held', prompt: 'a harbour in fog', type: 'TEXT_TO_IMAGE' } });
    expect(res.status).toBe(202);
    const jobId: string = res.body.id;

    // Submitted, the prediction's id stored on the job, and polled: now the process dies.
    const stored = await until('the prediction id on the job', () => job(jobId), (j) => j?.upstream_ref !== null && j?.upstream_ref !== undefined, 20_000);
    expect(fake.creates()).toBe(1);
    const prediction = fake.predictions[0];
    expect(stored.upstream_ref).toBe(`replicate:${prediction.id}`);
    await until('a poll of the prediction', async () => polls(prediction.id), (n) => n >= 2, 10_000);
    await h.kill('generation', 'SIGKILL');
    const orphaned = await job(jobId);
    expect(orphaned).toMatchObject({ status: 'processing', attempts: 1 });

    // Back up: the restarted process checks the parked job's prediction again. A job parked at the
    // kill is simply due (no attempt used); one killed in the middle of a check is parked again once
    // the dead worker's lease expires (an attempt).
    const pollsBefore = polls(prediction.id);
    await h.restart('generation');
    await until('the restarted process to poll the prediction', async () => polls(prediction.id), (n) => n > pollsBefore, 30_000);
    expect([1, 2]).toContain((await job(jobId)).attempts);
    fake.release();

    const done = await until('the job to complete', () => job(jobId), (j) => j.status === 'completed' || j.status === 'failed', 30_000);
    expect(done).toMatchObject({ status: 'completed', upstream_ref: `replicate:${prediction.id}` });
    // Never paid twice: one create upstream in all.
    expect(fake.creates()).toBe(1);
    expect(fake.calls('POST', /predictions$/)).toHaveLength(1);

    const record = (await http(h.url, 'GET', `/api/v1/generations/${jobId}`, { key })).body;
    expect(record).toMatchObject({ status: 'completed', credits_charged: PRICE });
    const file = await fetch(record.output_url);
    expect(Buffer.from(await file.arrayBuffer()).equals(ASSETS.png)).toBe(true);
    const balance = await until(
      'billing to capture the hold',
      async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body,
      (b) => b.held === 0,
      20_000,
    );
    expect(balance).toMatchObject({ available: 100 - PRICE, held: 0 });
    const captures = await h.query('SELECT id FROM billing.ledger WHERE account_id = $1 AND job_id = $2 AND kind = $3', [accountId, jobId, 'capture']);
    expect(captures).toHaveLength(1);
  });
});
