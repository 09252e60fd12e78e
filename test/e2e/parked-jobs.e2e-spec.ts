import type { ModelDefinitionInput } from '@gen/generation';
import { ParkedJobs } from '@gen/generation';
import { eventually, FakeReplicate, http, startFakeReplicate } from '@gen/testing';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

interface JobRow {
  status: string;
  lease_owner: string | null;
  next_check_at: Date | null;
  upstream_ref: string | null;
  upstream_deadline_at: Date | null;
}

/**
 * Parked provider jobs end to end in standalone (docs/jobs.md, "Waiting upstream"): a job waiting on
 * its provider holds no worker and no lease, stays `processing` for its owner, is checked by the poll
 * scheduler, cancels upstream when canceled, keeps its deadline when the provider stops answering, and
 * a binding's `maxInFlight` holds (the fake counts its running predictions).
 */
describe('standalone: provider jobs wait upstream parked, not in a worker', () => {
  // Jobs of several seconds each (the fakes run their predictions on the wall clock).
  jest.setTimeout(60_000);
  let held: FakeReplicate;
  let timed: FakeReplicate;
  let long: FakeReplicate;
  let h: StandaloneHarness;
  const PRICE = 3;

  const model = (id: string, fake: FakeReplicate, scenario: string, extra: Record<string, unknown> = {}): ModelDefinitionInput =>
    testModel({
      id,
      name: `Parked ${id}`,
      type: 'TEXT_TO_IMAGE',
      credits: PRICE,
      synchronous: false,
      engine: 'replicate',
      params: {
        baseUrl: fake.url,
        upstreamModel: `fake/${scenario}`,
        tokenEnv: 'REPLICATE_API_TOKEN',
        outputOrigins: [fake.cdnUrl],
        pollIntervalMs: 50,
        maxPollIntervalMs: 200,
        timeouts: { connectMs: 500, requestMs: 500, totalMs: 20_000 },
        ...extra,
      },
    });

  beforeAll(async () => {
    const token = 'r8_parked-token';
    [held, timed, long] = await Promise.all([
      startFakeReplicate({ token }),
      startFakeReplicate({ token, durationMs: 1_500 }),
      startFakeReplicate({ token, durationMs: 5_000 }),
    ]);
    h = await startStandaloneHarness(
      // One CPU worker and two provider slots: whatever runs at once upstream is parked, not in a slot.
      { REPLICATE_API_TOKEN: token, WORKER_CONCURRENCY: '1', PROVIDER_CONCURRENCY: '2', PROVIDER_CHECK_INTERVAL_MS: '20' },
      {
        models: [
          model('parked-held', held, 'held'),
          model('parked-long', long, 'ok'),
          model('parked-capped', timed, 'ok', { maxInFlight: 3 }),
          model('parked-silent', held, 'poll-503', { timeouts: { connectMs: 500, requestMs: 500, totalMs: 2_000 } }),
        ],
      },
    );
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([held, timed, long].map((f) => f?.close()));
  });

  const row = async (id: string) =>
    (
      (await h.running.databases.generation.query(
        'SELECT status, lease_owner, next_check_at, upstream_ref, upstream_deadline_at FROM jobs WHERE id = $1',
        [id],
      )) as JobRow[]
    )[0];
  const enterprise = async (parallel: number, credits = 1_000) => {
    const account = await h.account('pro', credits);
    await h.running.databases.billing.query(`UPDATE accounts SET plan = 'enterprise', parallel_tasks = $2, requests_per_minute = 100000 WHERE account_id = $1`, [
      account.accountId,
      parallel,
    ]);
    return account;
  };
  const submit = async (key: string, model: string) => {
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model, prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' } });
    expect(res.status).toBe(202);
    return res.body.id as string;
  };
  const record = async (key: string, id: string) => (await http(h.url, 'GET', `/api/v1/generations/${id}`, { key })).body;
  const final = (key: string, id: string) =>
    eventually(() => record(key, id), (r) => r.status === 'completed' || r.status === 'failed', 20_000);
  const credits = async (key: string) => (await http(h.url, 'GET', '/api/v1/credits', { key })).body;

  it('a job waiting on its prediction is parked: processing for its owner, no lease, a next check; then it completes and is charged', async () => {
    const { key } = await enterprise(5);
    const id = await submit(key, 'parked-held');
    const parked = await eventually(() => row(id), (r) => r.upstream_ref !== null && r.lease_owner === null && r.next_check_at !== null, 20_000, 5);
    expect(parked).toMatchObject({ status: 'processing', lease_owner: null });
    expect(parked.next_check_at).not.toBeNull();
    expect(parked.upstream_deadline_at).not.toBeNull();
    expect(await record(key, id)).toMatchObject({ status: 'processing', queue_position: null });
    // Checked again and again while it runs, by the scheduler.
    const prediction = held.predictions[held.predictions.length - 1];
    const polls = () => held.calls('GET', new RegExp(`^/v1/predictions/${prediction.id}$`)).length;
    const before = polls();
    expect(await eventually(async () => polls(), (n) => n >= before + 2)).toBeGreaterThanOrEqual(before + 2);
    held.release();
    expect(await final(key, id)).toMatchObject({ status: 'completed', credits_charged: PRICE });
    expect(held.creates()).toBeGreaterThanOrEqual(1);
  });

  it('30 jobs of 5 s all run upstream at once, with one worker and two provider slots, and all complete', async () => {
    const { key } = await enterprise(40);
    const ids = await Promise.all(Array.from({ length: 30 }, () => submit(key, 'parked-long')));
    // In a slot each, 3 at most would run at once; the two slots only submit, check and collect.
    expect(await eventually(async () => long.peakInFlight(), (n) => n >= 30, 10_000)).toBe(30);
    const statuses = async () => (await h.running.databases.generation.query(`SELECT status FROM jobs WHERE id = ANY($1::uuid[])`, [ids])) as Array<{ status: string }>;
    expect((await eventually(statuses, (rows) => rows.every((r) => r.status === 'completed'), 30_000)).map((r) => r.status)).toEqual(ids.map(() => 'completed'));
    for (const id of ids) expect(await record(key, id)).toMatchObject({ status: 'completed', credits_charged: PRICE });
  });

  it('maxInFlight 3: the provider never runs more than 3 of 12 jobs at once, the rest wait queued in order, all complete', async () => {
    const { key } = await enterprise(20);
    const startedAt = timed.predictions.length;
    const baseline = timed.inFlight();
    expect(baseline).toBe(0);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await submit(key, 'parked-capped'));
    let peak = 0;
    const queuedSeen = new Set<string>();
    const statuses = async () =>
      (await h.running.databases.generation.query(`SELECT id, status FROM jobs WHERE id = ANY($1::uuid[])`, [ids])) as Array<{ id: string; status: string }>;
    await eventually(
      async () => {
        peak = Math.max(peak, timed.inFlight());
        const rows = await statuses();
        for (const r of rows) if (r.status === 'queued') queuedSeen.add(r.id);
        return rows.every((r) => r.status === 'completed' || r.status === 'failed');
      },
      (done) => done,
      25_000,
      10,
    );
    expect(peak).toBeLessThanOrEqual(3);
    expect(timed.peakInFlight()).toBeGreaterThanOrEqual(3);
    expect(timed.predictions.length - startedAt).toBe(12);
    expect(queuedSeen.size).toBeGreaterThan(0);
    for (const id of ids) expect(await record(key, id)).toMatchObject({ status: 'completed', credits_charged: PRICE });
  });

  it('canceling a parked job cancels its prediction upstream and refunds it', async () => {
    const { key } = await enterprise(5, 100);
    const id = await submit(key, 'parked-held');
    expect(await eventually(() => row(id), (r) => r.upstream_ref !== null && r.lease_owner === null)).toMatchObject({ lease_owner: null });
    const ref = (await row(id)).upstream_ref as string;
    const predictionId = ref.replace(/^replicate:/, '');
    const res = await http(h.url, 'POST', `/api/v1/generations/${id}/cancel`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', credits_charged: 0 });
    expect(await eventually(async () => held.calls('POST', new RegExp(`^/v1/predictions/${predictionId}/cancel$`)).length, (n) => n === 1)).toBe(1);
    expect(held.predictions.find((p) => p.id === predictionId)?.status).toBe('canceled');
    expect(await eventually(() => credits(key), (b) => b.held === 0)).toMatchObject({ available: 100 });
  });

  it('a provider that stops answering: checks go on until the binding total timeout, then failed with a sanitised message and refunded', async () => {
    const { key } = await enterprise(5, 100);
    const id = await submit(key, 'parked-silent');
    // The binding's total timeout is 2 s; its checks meet 503 each time and are made again later.
    const done = await final(key, id);
    expect(done).toMatchObject({ status: 'failed', credits_charged: 0, error: 'The model provider did not answer in time. Your credits were refunded.' });
    const ref = (await row(id)).upstream_ref as string;
    // Checked more than once (503 is not a failure of the job, only a reason to look later).
    expect(held.calls('GET', new RegExp(`^/v1/predictions/${ref.replace(/^replicate:/, '')}$`)).length).toBeGreaterThan(1);
    expect(await eventually(() => credits(key), (b) => b.held === 0)).toMatchObject({ available: 100 });
  });

  it('wake makes a parked job due now; a job not parked, or none, says so', async () => {
    const { key } = await enterprise(5);
    const id = await submit(key, 'parked-held');
    expect(await eventually(() => row(id), (r) => r.lease_owner === null && r.next_check_at !== null)).toMatchObject({ lease_owner: null });
    const parkedJobs = h.running.app.get(ParkedJobs);
    // Push its next check far out, then wake it: due at once.
    await h.running.databases.generation.query(`UPDATE jobs SET next_check_at = now() + interval '1 hour' WHERE id = $1`, [id]);
    const outcome = await parkedJobs.wake(id);
    expect(['woken', 'not-parked']).toContain(outcome);
    // Checked (and parked again on its short cadence) instead of an hour from now.
    const woken = await eventually(() => row(id), (r) => r.next_check_at !== null && r.next_check_at.getTime() < Date.now() + 60_000);
    expect(woken.next_check_at!.getTime()).toBeLessThan(Date.now() + 60_000);
    expect(await parkedJobs.wake('00000000-0000-4000-8000-000000000000')).toBe('unknown');
    await http(h.url, 'POST', `/api/v1/generations/${id}/cancel`, { key });
    expect(await parkedJobs.wake(id)).toBe('not-parked');
  });
});
