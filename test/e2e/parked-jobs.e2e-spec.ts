import type { ModelDefinitionInput } from '@gen/generation';
import { ParkedJobs } from '@gen/generation';
import { eventually, FakeFal, FakeReplicate, http, startFakeFal, startFakeReplicate } from '@gen/testing';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface JobRow {
  status: string;
  lease_owner: string | null;
  next_check_at: Date | null;
  upstream_ref: string | null;
  upstream_deadline_at: Date | null;
}

/**
 * Parked provider jobs end to end in standalone (docs/design/jobs.md, "Waiting upstream"): a job waiting on
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
  /** One provider account behind two models (their limits are the account's, not each model's). */
  let shared: FakeReplicate;
  /** An account that answers a create with 429 while other jobs of it wait. */
  let throttling: FakeReplicate;
  /** fal's queue, which says where a request waits in it. */
  let fal: FakeFal;
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
    [held, timed, long, shared, throttling] = await Promise.all([
      startFakeReplicate({ token }),
      startFakeReplicate({ token, durationMs: 1_500 }),
      startFakeReplicate({ token, durationMs: 5_000 }),
      startFakeReplicate({ token, durationMs: 1_000 }),
      startFakeReplicate({ token }),
    ]);
    fal = await startFakeFal();
    h = await startStandaloneHarness(
      // One CPU worker and two provider slots: whatever runs at once upstream is parked, not in a slot.
      { REPLICATE_API_TOKEN: token, FAL_KEY: fal.key, WORKER_CONCURRENCY: '1', PROVIDER_CONCURRENCY: '2', PROVIDER_CHECK_INTERVAL_MS: '20' },
      {
        models: [
          model('parked-held', held, 'held'),
          // Pending until canceled: 'held' predictions succeed at their next poll once the first test released them.
          model('parked-pending', held, 'never-finishes'),
          model('parked-long', long, 'ok'),
          model('parked-capped', timed, 'ok', { maxInFlight: 3 }),
          model('parked-silent', held, 'poll-503', { timeouts: { connectMs: 500, requestMs: 500, totalMs: 2_000 } }),
          model('parked-shared-a', shared, 'ok', { maxInFlight: 3 }),
          model('parked-shared-b', shared, 'ok-string', { maxInFlight: 3 }),
          model('parked-throttled-held', throttling, 'held'),
          model('parked-throttled', throttling, 'create-429'),
          testModel({
            id: 'parked-fal-queued',
            name: 'Parked fal queued',
            type: 'TEXT_TO_IMAGE',
            credits: PRICE,
            synchronous: false,
            engine: 'fal',
            params: { baseUrl: fal.url, upstreamModel: 'fake-ai/queued', tokenEnv: 'FAL_KEY', outputOrigins: [fal.cdnUrl], pollIntervalMs: 50, maxPollIntervalMs: 200 },
          }),
        ],
      },
    );
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([held, timed, long, shared, throttling, fal].map((f) => f?.close()));
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
    const id = await submit(key, 'parked-pending');
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
    const id = await submit(key, 'parked-pending');
    expect(await eventually(() => row(id), (r) => r.lease_owner === null && r.next_check_at !== null)).toMatchObject({ lease_owner: null });
    const parkedJobs = h.running.app.get(ParkedJobs);
    // Push its next check far out while it is parked (not in the middle of a check, which would park
    // it again on its own cadence), then wake it: due at once.
    const pushedOut = async () =>
      (
        await h.running.databases.generation.query<Array<{ n: number }>>(
          `WITH pushed AS (UPDATE jobs SET next_check_at = now() + interval '1 hour'
                           WHERE id = $1 AND lease_owner IS NULL AND next_check_at IS NOT NULL RETURNING id)
           SELECT count(*)::int AS n FROM pushed`,
          [id],
        )
      )[0].n;
    expect(await eventually(pushedOut, (n) => n === 1)).toBe(1);
    expect(await parkedJobs.wake(id)).toBe('woken');
    // Checked (and parked again on its short cadence) instead of an hour from now.
    const dueSoon = (r: { next_check_at: Date | null }) => r.next_check_at !== null && r.next_check_at.getTime() < Date.now() + 60_000;
    const woken = await eventually(() => row(id), dueSoon);
    // The whole row on failure: its status, lease and next check say where it stopped.
    expect({ ...woken, dueSoon: dueSoon(woken) }).toMatchObject({ status: 'processing', dueSoon: true });
    expect(await parkedJobs.wake('00000000-0000-4000-8000-000000000000')).toBe('unknown');
    await http(h.url, 'POST', `/api/v1/generations/${id}/cancel`, { key });
    expect(await parkedJobs.wake(id)).toBe('not-parked');
  });

  it('two models on one provider account share its maxInFlight: 3 at once over both, not 3 each', async () => {
    const { key } = await enterprise(30);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await submit(key, 'parked-shared-a'), await submit(key, 'parked-shared-b'));
    let peak = 0;
    await eventually(
      async () => {
        peak = Math.max(peak, shared.inFlight());
        const rows = (await h.running.databases.generation.query(`SELECT status FROM jobs WHERE id = ANY($1::uuid[])`, [ids])) as Array<{ status: string }>;
        return rows.every((r) => r.status === 'completed' || r.status === 'failed');
      },
      (done) => done,
      30_000,
      10,
    );
    expect(shared.peakInFlight()).toBeLessThanOrEqual(3);
    expect(peak).toBeLessThanOrEqual(3);
    expect(shared.peakInFlight()).toBe(3);
    expect(shared.creates()).toBe(12);
    for (const id of ids) expect(await record(key, id)).toMatchObject({ status: 'completed', credits_charged: PRICE });
  });

  it("a provider's 429 with Retry-After slows the whole binding: no job of the account calls it until the Retry-After ends", async () => {
    const { key } = await enterprise(20);
    // Four jobs parked and checked every 50-200 ms (held until released).
    const waiting = await Promise.all(Array.from({ length: 4 }, () => submit(key, 'parked-throttled-held')));
    await eventually(async () => throttling.predictions.length, (n) => n === 4);
    const reads = () => throttling.calls('GET', /^\/v1\/predictions\//);
    await eventually(async () => reads().length, (n) => n >= 12);
    // Another model of the same account: its create is answered 429 with `Retry-After: 1`.
    const throttledId = await submit(key, 'parked-throttled');
    const create = () => throttling.calls('POST', /^\/v1\/models\/fake\/create-429\/predictions$/);
    await eventually(async () => create().length, (n) => n >= 1);
    const at = create()[0].at;
    await sleep(Math.max(0, at + 1_300 - Date.now()));
    // Nothing reached the provider while the binding backed off (the first 100 ms: calls already on their way).
    const during = throttling.requests.filter((r) => r.origin === 'api' && r.at > at + 100 && r.at < at + 900);
    expect(during.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    // Then the account is called again: the checks go on and the throttled create is made once more.
    expect(await eventually(async () => reads().filter((r) => r.at >= at + 900).length, (n) => n > 0)).toBeGreaterThan(0);
    expect(await eventually(async () => create().length, (n) => n === 2)).toBe(2);
    throttling.release();
    for (const id of [...waiting, throttledId]) expect(await final(key, id)).toMatchObject({ status: 'completed', credits_charged: PRICE });
    expect(throttling.creates()).toBe(5);
  });

  it("a parked job's record shows the progress its provider reports (Replicate's log bars), from its checks", async () => {
    const { key } = await enterprise(5);
    const id = await submit(key, 'parked-long');
    // Each check reads the prediction's logs (it runs 5 s); the fake's bar grows 20% a poll, up to 80%.
    const seen = await eventually(() => record(key, id), (r) => r.progress !== null && r.progress >= 0.4, 20_000, 20);
    expect(seen).toMatchObject({ status: 'processing', queue_position: null });
    expect(seen.progress).toBeLessThanOrEqual(0.8);
    expect((await row(id)).next_check_at).not.toBeNull(); // parked while it shows it
    expect(await final(key, id)).toMatchObject({ status: 'completed', progress: 1, queue_position: null });
  });

  it("a parked job waiting in fal's queue shows its queue_position there while processing, and none once it runs", async () => {
    const { key } = await enterprise(5);
    const id = await submit(key, 'parked-fal-queued');
    const waiting = await eventually(() => record(key, id), (r) => r.queue_position === 3, 20_000, 20);
    expect(waiting).toMatchObject({ status: 'processing', queue_position: 3 });
    fal.release();
    expect(await final(key, id)).toMatchObject({ status: 'completed', queue_position: null, credits_charged: PRICE });
  });
});
