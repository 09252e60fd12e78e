import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { http } from '@gen/testing';
import { runCli } from '../support/cli';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';
import { openSse } from '../support/sse';
import { sleep, until } from '../support/until';

const CANCELED = 'Canceled at your request. Your credits were refunded.';

function storedFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Job control with every service its own process, two gateways and two generation replicas: a
 * cancel or a deadline reaches the run on whichever replica holds it, live status streams are
 * served by any gateway (fed by the broadcast, not the database), credits stay exact.
 */
describe('distributed: job control across replicas', () => {
  let h: DistributedHarness;

  beforeAll(async () => {
    // motion-lite-1 takes 3 s x 4 = 12 s here, reporting progress as it goes.
    h = await startDistributed({
      replicas: { gateway: 2, generation: 2 },
      appEnv: { generation: { ENGINE_LATENCY_SCALE: '4', OUTPUT_SWEEP_INTERVAL_MS: '200' } },
    });
  });
  afterAll(() => h?.close());

  async function account(parallel: number, credits = 1000) {
    const created = await h.account('pro', credits);
    const set = runCli(h.database.url, 'plans', 'set', '--account', created.accountId, '--plan', 'enterprise', '--rpm', '100000', '--parallel', String(parallel));
    expect(set.code).toBe(0);
    return created;
  }
  const submit = (url: string, key: string, model: string, type: string, headers: Record<string, string> = {}) =>
    http(url, 'POST', '/api/v1/generate', { key, headers, body: { model, prompt: 'a storm over the sea', type } });
  const read = async (url: string, key: string, id: string) => (await http(url, 'GET', `/api/v1/generations/${id}`, { key })).body;
  const settled = (key: string) =>
    until('holds settled', async () => {
      const balance = (await http(h.url, 'GET', '/api/v1/credits', { key })).body;
      return balance.held === 0 ? balance : undefined;
    });

  it('a stream on one gateway follows a job submitted through the other: queued, processing with progress, canceled', async () => {
    const { key } = await account(1);
    const [gatewayA, gatewayB] = h.urls;
    const first = await submit(gatewayA, key, 'motion-lite-1', 'TEXT_TO_VIDEO');
    const second = await submit(gatewayA, key, 'motion-lite-1', 'TEXT_TO_VIDEO');
    expect(second.body).toMatchObject({ status: 'queued', queue_position: 0 });

    const stream = await openSse(`${gatewayB}/api/v1/generations/${second.body.id}/events`, key);
    expect(stream.status).toBe(200);
    await stream.next((e) => e.event === 'queued' && e.data.queue_position === 0);
    const firstStream = await openSse(`${gatewayB}/api/v1/generations/${first.body.id}/events`, key);
    const progressed = await firstStream.next((e) => e.event === 'processing' && e.data.progress > 0, 15_000);
    expect(progressed.data.progress).toBeLessThanOrEqual(0.9);

    // Cancel the running one through gateway A: its run stops on whichever replica has it, and
    // the queued one starts (its stream on gateway B shows it).
    const canceled = await http(gatewayA, 'POST', `/api/v1/generations/${first.body.id}/cancel`, { key });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'failed', error: CANCELED, credits_charged: 0 });
    await firstStream.ended;
    expect(firstStream.events.at(-1)).toMatchObject({ event: 'failed', data: { error: CANCELED } });
    await stream.next((e) => e.event === 'processing', 15_000);

    // Then cancel the second through gateway B; both refunded exactly.
    expect((await http(gatewayB, 'POST', `/api/v1/generations/${second.body.id}/cancel`, { key })).status).toBe(200);
    await stream.ended;
    expect(stream.events.at(-1)?.event).toBe('failed');
    expect(await settled(key)).toMatchObject({ available: 1000, held: 0 });

    // Neither run wrote an output after its cancel: nothing in storage for them, now or a moment later.
    await sleep(1_000);
    expect(await read(gatewayB, key, first.body.id)).toMatchObject({ status: 'failed', output_url: null });
    expect(storedFiles(h.storageDir)).toEqual([]);
  });

  it('Cancel-After cancels a running job on its replica; a cancel racing completions charges exactly once', async () => {
    const { key } = await account(4);
    const deadline = await submit(h.urls[1], key, 'motion-lite-1', 'TEXT_TO_VIDEO', { 'Cancel-After': '2s' });
    const failed = await until('deadline cancel', async () => {
      const record = await read(h.url, key, deadline.body.id);
      return record.status === 'failed' ? record : undefined;
    });
    expect(failed.error).toBe('Canceled: the generation did not finish within its Cancel-After deadline. Your credits were refunded.');
    expect(failed.canceled_at).not.toBeNull();

    const ids: string[] = [];
    for (let round = 0; round < 2; round++) {
      const submitted = await Promise.all(Array.from({ length: 8 }, (_, i) => submit(h.urls[i % 2], key, 'pixel-flux-1', 'TEXT_TO_IMAGE')));
      ids.push(...submitted.map((s) => s.body.id));
      await Promise.all(submitted.map((s, i) => http(h.urls[(i + 1) % 2], 'POST', `/api/v1/generations/${s.body.id}/cancel`, { key })));
    }
    const records = await Promise.all(ids.map((id) => read(h.url, key, id)));
    let charged = 0;
    for (const record of records) {
      if (record.status === 'completed') charged += record.credits_charged;
      else expect(record).toMatchObject({ status: 'failed', credits_charged: 0 });
    }
    expect(await settled(key)).toMatchObject({ available: 1000 - charged, held: 0 });
  });

  it('an output past its retention is deleted by a generation replica and answers 410 on every gateway', async () => {
    const { key } = await account(2);
    const done = await submit(h.url, key, 'pixel-flux-1', 'TEXT_TO_IMAGE');
    expect(done.body.status).toBe('completed');
    expect((await fetch(done.body.output_url)).status).toBe(200);
    await h.query(`UPDATE generation.jobs SET output_expires_at = now() - interval '1 second' WHERE id = $1`, [done.body.id]);
    const key410 = new URL(done.body.output_url).pathname;
    for (const url of h.urls) {
      const gone = await until('410', async () => {
        const res = await fetch(`${url}${key410}`);
        return res.status === 410 ? res : undefined;
      });
      expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('gone');
    }
  });
});
