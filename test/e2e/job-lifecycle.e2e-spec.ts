import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE, ModelDefinitionInput } from '@gen/generation';
import { eventually, http } from '@gen/testing';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';
import { HoldingEngine } from '../support/test-engines';

/** Every stored output file (relative keys) under the harness's data folder. */
function storedOutputs(h: StandaloneHarness): string[] {
  const root = join(h.dataDir, 'outputs');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((p) => /\.[a-z0-9]+$/.test(p));
}

const model = (id: string, type: ModelDefinitionInput['type'], synchronous: boolean, engine: string, credits: number): ModelDefinitionInput =>
  testModel({ id, type, synchronous, engine, credits });

/**
 * Sync budget, parallel slots and leases through standalone over HTTP. The "slow" engine is a gate
 * the test opens, so nothing here depends on guessing how long an engine takes.
 */
describe('standalone: the sync budget (SYNC_WAIT_MS = 400 ms) and leases', () => {
  let h: StandaloneHarness;
  const gate = new HoldingEngine();
  const SYNC_WAIT_MS = 400;

  beforeAll(async () => {
    // Heartbeats every 20 s (lease / 3): within a test, a run only learns it lost its job when the
    // job is claimed again or when it tries to finish, which is what the lease tests exercise.
    h = await startStandaloneHarness(
      { SYNC_WAIT_MS: String(SYNC_WAIT_MS), JOB_LEASE_MS: '60000' },
      {
        engines: { holding: gate },
        models: [
          ...CATALOGUE,
          model('gate-image', 'TEXT_TO_IMAGE', true, 'holding', 4),
          model('gate-video', 'TEXT_TO_VIDEO', false, 'holding', 10),
          model('quick-image', 'TEXT_TO_IMAGE', true, 'instant', 4),
        ],
      },
    );
  });
  afterEach(() => {
    gate.release();
    gate.shut();
  });
  afterAll(() => h?.close());

  const generate = (key: string, modelId: string, type: string) =>
    http(h.url, 'POST', '/api/v1/generate', { key, body: { model: modelId, prompt: 'a slow lighthouse', type } });
  const read = async (key: string, id: string) => (await http(h.url, 'GET', `/api/v1/generations/${id}`, { key })).body;
  const credits = async (key: string) => (await http(h.url, 'GET', '/api/v1/credits', { key })).body;
  const job = async (id: string) =>
    (await h.running.databases.generation.query('SELECT status, attempts, lease_owner FROM jobs WHERE id = $1', [id]))[0] as {
      status: string;
      attempts: number;
      lease_owner: string | null;
    };

  it('an image job that cannot finish within the budget answers 202 with the record as it stands, and finishes later', async () => {
    const { key } = await h.account('free', 100);
    const started = Date.now();
    const res = await generate(key, 'gate-image', 'TEXT_TO_IMAGE');
    const elapsed = Date.now() - started;

    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/api/v1/generations/${res.body.id}`);
    expect(res.body).toMatchObject({ status: 'processing', output_url: null, completed_at: null, error: null });
    expect(res.body.started_at).not.toBeNull();
    expect(elapsed).toBeGreaterThanOrEqual(SYNC_WAIT_MS - 50);
    expect(elapsed).toBeLessThan(SYNC_WAIT_MS + 5_000);
    expect(await credits(key)).toMatchObject({ available: 96, held: 4 });

    await gate.releaseWhenWaiting();
    const done = await eventually(() => read(key, res.body.id), (r) => r.status === 'completed');
    expect(done).toMatchObject({ status: 'completed', credits_charged: 4 });
    expect((await fetch(done.output_url)).status).toBe(200);
    expect(await eventually(() => credits(key), (c) => c.held === 0)).toMatchObject({ available: 96, held: 0 });
  });

  it('an image job queued behind the parallel-task limit answers 202 "queued", and runs when the slot frees', async () => {
    const { key } = await h.account('free', 100); // free: 1 parallel task
    const video = await generate(key, 'gate-video', 'TEXT_TO_VIDEO');
    expect(video.status).toBe(202);
    await eventually(() => job(video.body.id), (j) => j.status === 'processing');

    const image = await generate(key, 'quick-image', 'TEXT_TO_IMAGE'); // instant engine, but no free slot
    expect(image.status).toBe(202);
    expect(image.body).toMatchObject({ status: 'queued', started_at: null, output_url: null });
    expect((await job(image.body.id)).status).toBe('queued');

    // Still waiting for the slot, however long the video takes.
    await new Promise((r) => setTimeout(r, 300));
    expect((await job(image.body.id)).status).toBe('queued');

    await gate.releaseWhenWaiting();
    const finishedImage = await eventually(() => read(key, image.body.id), (r) => r.status === 'completed');
    expect(finishedImage).toMatchObject({ status: 'completed', credits_charged: 4 });
    expect((await read(key, video.body.id)).status).toBe('completed');
  });

  it('an image job that finishes within the budget answers 200 with the completed record', async () => {
    const { key } = await h.account('free', 100);
    const res = await generate(key, 'quick-image', 'TEXT_TO_IMAGE');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', credits_charged: 4 });
  });

  it('a job whose worker vanished is requeued when its lease expires, runs again and is charged once', async () => {
    const { key } = await h.account('pro', 100);
    const res = await generate(key, 'gate-video', 'TEXT_TO_VIDEO');
    await eventually(() => job(res.body.id), (j) => j.status === 'processing');
    // The worker "dies": its lease now belongs to nobody alive and has expired.
    await h.running.databases.generation.query(
      `UPDATE jobs SET lease_owner = 'dead-worker', lease_expires_at = now() - interval '1 second' WHERE id = $1`,
      [res.body.id],
    );
    const retried = await eventually(() => job(res.body.id), (j) => j.attempts === 2 && j.status === 'processing' && j.lease_owner !== 'dead-worker');
    expect(retried).toMatchObject({ status: 'processing', attempts: 2 });
    // The stale run was stopped (only the new one waits), then the gate opens.
    await eventually(async () => gate.waiting, (n) => n === 1, 5_000);
    expect(gate.waiting).toBe(1);
    gate.release();
    const done = await eventually(() => read(key, res.body.id), (r) => r.status === 'completed');
    expect(done.credits_charged).toBe(10);
    expect(gate.started.filter((id) => id === res.body.id)).toHaveLength(2);
    expect(await eventually(() => credits(key), (c) => c.held === 0)).toMatchObject({ available: 90, held: 0 });
  });

  it('a job whose lease expires on its last attempt fails with a refund, and keeps no output', async () => {
    const { key } = await h.account('pro', 100);
    const res = await generate(key, 'gate-video', 'TEXT_TO_VIDEO');
    await eventually(() => job(res.body.id), (j) => j.status === 'processing');
    const outputsBefore = storedOutputs(h);
    await h.running.databases.generation.query(
      `UPDATE jobs SET lease_owner = 'dead-worker', lease_expires_at = now() - interval '1 second', attempts = 3 WHERE id = $1`,
      [res.body.id],
    );
    const failed = await eventually(() => read(key, res.body.id), (r) => r.status === 'failed');
    expect(failed).toMatchObject({ status: 'failed', output_url: null, credits_charged: 0 });
    expect(failed.error).toMatch(/could not be completed.*refunded/i);
    expect(await eventually(() => credits(key), (c) => c.held === 0)).toMatchObject({ available: 100, held: 0 });

    // The run that lost the job learns the job is final (the broadcast of its failure) and stops,
    // without being released; it stores nothing.
    await eventually(async () => gate.waiting, (n) => n === 0, 5_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(storedOutputs(h)).toEqual(outputsBefore);
    expect(await read(key, res.body.id)).toEqual(failed);
  });
});

describe('standalone: video, audio and 3D answer 202 at once, whatever the sync budget', () => {
  let h: StandaloneHarness;
  const gate = new HoldingEngine();

  beforeAll(async () => {
    // A generous budget: if these waited for it, the responses would take 20 s.
    h = await startStandaloneHarness(
      {
        SYNC_WAIT_MS: '20000',
      },
      {
        engines: { holding: gate },
        // The asynchronous models of the catalogue, bound to the holding engine.
        models: CATALOGUE.filter((m) => ['motion-lite-1', 'tone-weaver-1', 'mesh-smith-1'].includes(m.id)).map((m) => ({
          ...m,
          engine: 'holding',
          params: {},
        })),
      },
    );
  });
  afterAll(async () => {
    gate.release(true);
    await h?.close();
  });

  it.each([
    ['motion-lite-1', 'TEXT_TO_VIDEO'],
    ['tone-weaver-1', 'TEXT_TO_AUDIO'],
    ['mesh-smith-1', 'TEXT_TO_3D'],
  ])('%s (%s)', async (modelId, type) => {
    const { key } = await h.account('pro', 100);
    const started = Date.now();
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: modelId, prompt: 'x', type } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/api/v1/generations/${res.body.id}`);
    expect(['queued', 'processing']).toContain(res.body.status);

    await gate.releaseWhenWaiting();
    const done = await eventually(
      async () => (await http(h.url, 'GET', `/api/v1/generations/${res.body.id}`, { key })).body,
      (r) => r.status === 'completed',
    );
    expect(done.status).toBe('completed');
  });
});
