import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BillingService } from '@gen/billing';
import { ApiKeysService } from '@gen/gateway';
import { JobJanitorService, ModelDefinitionInput } from '@gen/generation';
import { http } from '@gen/testing';
import { testModel } from '../support/factories';
import { HoldEngine } from '../support/hold-engine';
import { openSse } from '../support/sse';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';
import { sleep, until } from '../support/until';

const CANCELED = 'Canceled at your request. Your credits were refunded.';
const DEADLINE = 'Canceled: the generation did not finish within its Cancel-After deadline. Your credits were refunded.';

const model = (id: string, engine: string, synchronous: boolean, credits: number, type: ModelDefinitionInput['type'] = 'TEXT_TO_AUDIO'): ModelDefinitionInput =>
  testModel({ id, engine, synchronous, credits, type });

/** Job control end to end in standalone: cancel, Cancel-After, queue position, progress, live status, retention. */
describe('job control (standalone)', () => {
  let h: StandaloneHarness;
  const hold = new HoldEngine('hold', 0.4);

  beforeAll(async () => {
    h = await startStandaloneHarness(
      { SSE_STREAMS_PER_ACCOUNT: '3', SSE_HEARTBEAT_MS: '200', OUTPUT_SWEEP_INTERVAL_MS: '100' },
      {
        engines: { hold },
        models: [
          model('held-audio-1', 'hold', false, 10),
          model('held-image-1', 'hold', true, 5, 'TEXT_TO_IMAGE'),
          model('quick-audio-1', 'instant', false, 2),
        ],
      },
    );
  });
  afterAll(async () => {
    hold.releaseAll();
    await h?.close();
  });

  /** An account with `parallel` slots and generous rate limits (enterprise). */
  async function account(parallel: number, credits = 1000) {
    const created = await h.account('pro', credits);
    await h.running.app.get(BillingService).setPlan(created.accountId, 'enterprise', { rpm: 100_000, parallel });
    return created;
  }
  const submit = (key: string, modelId: string, headers: Record<string, string> = {}, type = 'TEXT_TO_AUDIO') =>
    http(h.url, 'POST', '/api/v1/generate', { key, headers, body: { model: modelId, prompt: 'hold on', type } });
  const read = async (key: string, id: string) => (await http(h.url, 'GET', `/api/v1/generations/${id}`, { key })).body;
  const cancel = (key: string, id: string) => http(h.url, 'POST', `/api/v1/generations/${id}/cancel`, { key });
  const credits = async (key: string) => (await http(h.url, 'GET', '/api/v1/credits', { key })).body;
  const settled = (key: string) => until('holds settled', async () => ((await credits(key)).held === 0 ? credits(key) : undefined));

  it('queued jobs show their position; canceling a queued job is immediate, refunded and idempotent', async () => {
    const { key } = await account(1);
    const running = await submit(key, 'held-audio-1');
    await hold.startedJob(running.body.id);
    const second = await submit(key, 'held-audio-1');
    const third = await submit(key, 'held-audio-1');
    expect(second.body).toMatchObject({ status: 'queued', queue_position: 0, progress: null });
    expect(third.body).toMatchObject({ status: 'queued', queue_position: 1 });
    expect((await read(key, running.body.id)).queue_position).toBeNull();

    const canceled = await cancel(key, second.body.id);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: second.body.id, status: 'failed', credits_charged: 0, error: CANCELED, output_url: null });
    expect(Date.parse(canceled.body.canceled_at)).toBeGreaterThan(0);
    expect(canceled.body.completed_at).toBe(canceled.body.canceled_at);
    expect((await read(key, third.body.id)).queue_position).toBe(0);
    // Idempotent: the same answer again.
    const again = await cancel(key, second.body.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(canceled.body);
    expect(hold.started).not.toContain(second.body.id);

    hold.release(running.body.id);
    await hold.startedJob(third.body.id);
    hold.release(third.body.id);
    await until('third completed', async () => ((await read(key, third.body.id)).status === 'completed' ? true : undefined));
    expect(await settled(key)).toMatchObject({ available: 1000 - 20, held: 0 });
  });

  it('canceling a running job stops its run and the provider job, refunds it, and sends generation.failed', async () => {
    const { key } = await account(2);
    const job = await submit(key, 'held-audio-1');
    await hold.startedJob(job.body.id);
    await until('progress saved', async () => ((await read(key, job.body.id)).progress === 0.4 ? true : undefined));
    const canceled = await cancel(key, job.body.id);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'failed', credits_charged: 0, error: CANCELED });
    await until('run aborted', async () => (hold.aborted.includes(job.body.id) ? true : undefined));
    await until('upstream canceled', async () => (hold.upstreamCanceled.includes(`upstream-${job.body.id}`) ? true : undefined));
    expect(await settled(key)).toMatchObject({ available: 1000, held: 0 });
    const events = await h.running.databases.generation.query(`SELECT pattern FROM generation.outbox WHERE payload->'record'->>'id' = $1`, [job.body.id]);
    expect(events).toEqual([{ pattern: 'generation.failed' }]);
  });

  it('409 for a finished job, 404 for another account\'s or an unknown id, 403 without the generate scope', async () => {
    const { key, accountId } = await account(2);
    const done = await submit(key, 'quick-audio-1');
    await until('done', async () => ((await read(key, done.body.id)).status === 'completed' ? true : undefined));
    const conflict = await cancel(key, done.body.id);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: 'conflict', message: 'This generation already completed; there is nothing to cancel.' });
    const other = await account(2);
    expect((await cancel(other.key, done.body.id)).status).toBe(404);
    expect((await cancel(key, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await cancel(key, 'not-a-uuid')).status).toBe(404);
    const readOnly = await h.running.app.get(ApiKeysService).create(accountId, 'reader', ['read']);
    const forbidden = await cancel(readOnly.key, done.body.id);
    expect(forbidden.status).toBe(403);
    expect((await read(key, done.body.id)).status).toBe('completed');
  });

  it('Cancel-After cancels a running job at its deadline, and a queued one; a bad value is 422 and charges nothing', async () => {
    const { key } = await account(1);
    const running = await submit(key, 'held-audio-1', { 'Cancel-After': '1s' });
    const queued = await submit(key, 'held-audio-1', { 'Cancel-After': '2s' });
    expect(running.status).toBe(202);
    const first = await until('deadline', async () => {
      const record = await read(key, running.body.id);
      return record.status === 'failed' ? record : undefined;
    });
    expect(first).toMatchObject({ error: DEADLINE, credits_charged: 0 });
    expect(Date.parse(first.canceled_at) - Date.parse(first.created_at)).toBeGreaterThanOrEqual(1000);
    await until('run aborted', async () => (hold.aborted.includes(running.body.id) ? true : undefined));
    // The queued one started when the slot freed, and is canceled at its own deadline.
    const second = await until('second deadline', async () => {
      const record = await read(key, queued.body.id);
      return record.status === 'failed' ? record : undefined;
    });
    expect(second.error).toBe(DEADLINE);
    expect(await settled(key)).toMatchObject({ available: 1000, held: 0 });

    for (const bad of ['soon', '0s', '25h']) {
      const refused = await submit(key, 'held-audio-1', { 'Cancel-After': bad });
      expect(refused.status).toBe(422);
      expect(refused.body.error.message).toContain('Cancel-After');
    }
    expect(await credits(key)).toMatchObject({ available: 1000, held: 0 });
  });

  it('a synchronous submit with a shorter Cancel-After answers when the deadline cancels it', async () => {
    const { key } = await account(1);
    const started = Date.now();
    const res = await submit(key, 'held-image-1', { 'Cancel-After': '1s' }, 'TEXT_TO_IMAGE');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', error: DEADLINE, credits_charged: 0 });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a race of cancel against completion charges exactly once or refunds exactly once', async () => {
    const { key } = await account(8, 1000);
    const ids: string[] = [];
    for (let round = 0; round < 3; round++) {
      const submitted = await Promise.all(Array.from({ length: 10 }, () => submit(key, 'quick-audio-1')));
      ids.push(...submitted.map((s) => s.body.id));
      await Promise.all(submitted.map((s, i) => sleep(i * 3).then(() => cancel(key, s.body.id))));
    }
    const records = await Promise.all(ids.map((id) => until('final', async () => {
      const record = await read(key, id);
      return record.status === 'completed' || record.status === 'failed' ? record : undefined;
    })));
    for (const record of records) {
      if (record.status === 'completed') expect(record).toMatchObject({ credits_charged: 2, canceled_at: null });
      else expect(record).toMatchObject({ credits_charged: 0, error: CANCELED });
    }
    const charged = records.reduce((sum, r) => sum + r.credits_charged, 0);
    expect(await settled(key)).toMatchObject({ available: 1000 - charged, held: 0 });
  });

  it('streams a job live: queued with its position, processing with progress, then the final record, and ends', async () => {
    const { key } = await account(1);
    const first = await submit(key, 'held-audio-1');
    await hold.startedJob(first.body.id);
    const second = await submit(key, 'held-audio-1');
    const stream = await openSse(`${h.url}/api/v1/generations/${second.body.id}/events`, key);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('x-request-id')).toBeTruthy();
    expect(stream.headers.get('cache-control')).toBe('no-cache, no-transform');
    const queued = await stream.next((e) => e.event === 'queued');
    expect(queued.data).toMatchObject({ id: second.body.id, status: 'queued', queue_position: 0 });
    await stream.next(() => stream.comments > 0 || false, 2_000).catch(() => undefined);
    await until('a heartbeat', async () => (stream.comments > 0 ? true : undefined), 3_000);

    hold.release(first.body.id);
    const processing = await stream.next((e) => e.event === 'processing' && e.data.progress === 0.4);
    expect(processing.data.queue_position).toBeNull();
    hold.release(second.body.id);
    const completed = await stream.next((e) => e.event === 'completed');
    expect(completed.data).toMatchObject({ id: second.body.id, status: 'completed', credits_charged: 10, progress: 1 });
    await stream.ended;
    expect(stream.events.map((e) => e.event)).toEqual(['queued', ...stream.events.slice(1, -1).map(() => 'processing'), 'completed']);

    // A finished job: its final record at once, then the end.
    const finished = await openSse(`${h.url}/api/v1/generations/${second.body.id}/events`, key);
    await finished.ended;
    expect(finished.events).toEqual([{ event: 'completed', data: completed.data }]);
  });

  it('resumes a stream with Last-Event-ID: the record the client has is not sent again, a newer one is, and a final one it has is 204', async () => {
    const { key } = await account(1);
    const first = await submit(key, 'held-audio-1');
    await hold.startedJob(first.body.id);
    const second = await submit(key, 'held-audio-1');
    const url = `${h.url}/api/v1/generations/${second.body.id}/events`;
    const stream = await openSse(url, key);
    await stream.next((e) => e.event === 'queued');
    const queuedId = stream.ids[0] as string;
    expect(queuedId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    stream.close();

    // Nothing changed since: the stream opens (headers, heartbeats) without repeating the queued record.
    const resumed = await openSse(url, key, queuedId);
    expect(resumed.status).toBe(200);
    await until('a heartbeat', async () => (resumed.comments > 0 ? true : undefined), 3_000);
    expect(resumed.events).toEqual([]);
    hold.release(first.body.id);
    await resumed.next((e) => e.event === 'processing');
    expect(resumed.events[0].event).toBe('processing');
    const processingId = resumed.ids.at(-1) as string;
    resumed.close();

    // An older id than the current record: the current record at once.
    const stale = await openSse(url, key, queuedId);
    expect((await stale.next(() => true)).event).toBe('processing');
    expect(stale.ids[0]).toBe(processingId);
    stale.close();

    hold.release(second.body.id);
    const rest = await openSse(url, key, processingId);
    await rest.ended;
    // The engine's last progress may still arrive before the final record; never the one the client had.
    expect(rest.events.at(-1)?.event).toBe('completed');
    expect(rest.ids).not.toContain(processingId);
    const finalId = rest.ids.at(-1) as string;

    // The client has the final record: 204, which tells EventSource to stop reconnecting.
    const done = await openSse(url, key, finalId);
    expect({ status: done.status, events: done.events, requestId: typeof done.headers.get('x-request-id') }).toEqual({ status: 204, events: [], requestId: 'string' });
    // Ids name records, not connections: a fresh stream gives the same id for the same record; an unknown id is no id.
    for (const lastEventId of [undefined, 'not-an-event-id']) {
      const fresh = await openSse(url, key, lastEventId);
      await fresh.ended;
      expect(fresh.ids).toEqual([finalId]);
    }
  });

  it('refuses streams beyond the account limit (429), another account\'s job (404), and ends a stream on cancel', async () => {
    const { key } = await account(1);
    const job = await submit(key, 'held-audio-1');
    const streams = await Promise.all(Array.from({ length: 3 }, () => openSse(`${h.url}/api/v1/generations/${job.body.id}/events`, key)));
    for (const s of streams) expect(s.status).toBe(200);
    const refused = await openSse(`${h.url}/api/v1/generations/${job.body.id}/events`, key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(refused.headers.get('retry-after')).toBe('5');
    const other = await account(1);
    expect((await openSse(`${h.url}/api/v1/generations/${job.body.id}/events`, other.key)).status).toBe(404);

    await cancel(key, job.body.id);
    for (const s of streams) {
      await s.ended;
      expect(s.events.at(-1)).toMatchObject({ event: 'failed', data: { error: CANCELED } });
    }
    // Closed streams free their places.
    const again = await openSse(`${h.url}/api/v1/generations/${job.body.id}/events`, key);
    expect(again.status).toBe(200);
    await again.ended;
  });

  it('keeps outputs for the retention period, then deletes them: the URL answers 410, the record keeps its metadata', async () => {
    const { key } = await account(2);
    const done = await submit(key, 'quick-audio-1');
    const record = await until('completed', async () => {
      const r = await read(key, done.body.id);
      return r.status === 'completed' ? r : undefined;
    });
    expect(Date.parse(record.output_expires_at) - Date.parse(record.completed_at)).toBe(168 * 3600 * 1000);
    expect((await fetch(record.output_url)).status).toBe(200);

    await h.running.databases.generation.query(`UPDATE generation.jobs SET output_expires_at = now() - interval '1 second' WHERE id = $1`, [done.body.id]);
    const path = join(h.dataDir, 'outputs', new URL(record.output_url).pathname.replace(/^\/cdn\//, ''));
    await until('file deleted', async () => (existsSync(path) ? undefined : true));
    expect(await h.running.app.get(JobJanitorService).deleteExpiredOutputs()).toBe(0);
    const gone = await fetch(record.output_url);
    expect(gone.status).toBe(410);
    expect(gone.headers.get('x-request-id')).toBeTruthy();
    expect(((await gone.json()) as { error: unknown }).error).toMatchObject({ code: 'gone', status: 410 });
    // The record keeps everything, its URL included. GET answers a finished record from the gateway's
    // memory (in service it never changes: the expiry is set once, at the finish), so the row the
    // test moved into the past is read through the list, which reads the database: only the expiry moved.
    expect(await read(key, done.body.id)).toEqual(record);
    const listed = (await http(h.url, 'GET', '/api/v1/generations?limit=100', { key })).body as { data: Array<typeof record> };
    const after = listed.data.find((r) => r.id === done.body.id);
    expect({ ...after, output_expires_at: record.output_expires_at }).toEqual(record);
    expect(Date.parse(after?.output_expires_at)).toBeLessThan(Date.now());
    // A key that never existed is still a 404.
    expect((await fetch(record.output_url.replace(/[0-9a-f]{32}/, 'f'.repeat(32)))).status).toBe(404);
  });
});
