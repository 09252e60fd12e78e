import { http } from '@gen/testing';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

/**
 * The durable JetStream consumer: a job that finishes while billing is down is captured once
 * billing comes back, from the event that waited in the stream.
 */
describe('distributed: an event survives the billing process being down', () => {
  let h: DistributedHarness;

  beforeAll(async () => {
    // tone-weaver-1 has 1000 ms of simulated latency: x1.5 leaves time to kill billing mid-job.
    h = await startDistributed({ appEnv: { generation: { ENGINE_LATENCY_SCALE: '1.5' } } });
  });
  afterAll(() => h?.close());

  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let value = await read();
    while (!done(value) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      value = await read();
    }
    return value;
  }

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
});
