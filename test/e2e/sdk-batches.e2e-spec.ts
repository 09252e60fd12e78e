import { ModelDefinitionInput } from '@gen/generation';
import { Batch, BatchLineResult, BatchRequestLine, GenerationApiError, GenerationClient } from '@generation-service/sdk';
import { testModel } from '../support/factories';
import { HoldEngine } from '../support/hold-engine';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const quickModel: ModelDefinitionInput = testModel({ id: 'quick-audio-1', engine: 'instant', type: 'TEXT_TO_AUDIO', credits: 4, synchronous: false });
const heldModel: ModelDefinitionInput = testModel({ id: 'held-audio-2', engine: 'hold', type: 'TEXT_TO_AUDIO', credits: 10, synchronous: false });
const line = (n: number, model = 'quick-audio-1'): BatchRequestLine => ({ custom_id: `clip-${n}`, body: { model, prompt: `clip number ${n}`, type: 'TEXT_TO_AUDIO' } });

async function all<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

/** The TypeScript SDK's batches against a running standalone: every call over real HTTP, the lines run by generation's feeder. */
describe('TypeScript SDK: batches against standalone', () => {
  let h: StandaloneHarness;
  const hold = new HoldEngine('hold');
  const clientOf = async (credits = 1000) => {
    const account = await h.account('pro', credits);
    return new GenerationClient({ apiKey: account.key, baseUrl: h.url });
  };

  beforeAll(async () => {
    h = await startStandaloneHarness({}, { engines: { hold }, models: [quickModel, heldModel] });
  });
  afterAll(async () => {
    hold.releaseAll();
    await h?.close();
  });

  it('creates a batch from request lines (a repeat with its idempotency key answers the same batch), waits for it, and reads its results line by line', async () => {
    const client = await clientOf(100);
    const created = await client.batches.create([line(1), line(2), line(3)], { completionWindow: '1h', idempotencyKey: 'sdk-batch-1' });
    expect(created).toMatchObject({ object: 'batch', status: 'in_progress', completion_window: '1h', request_counts: { total: 3, invalid: 0 } });
    expect((await client.batches.create([line(1), line(2), line(3)], { completionWindow: '1h', idempotencyKey: 'sdk-batch-1' })).id).toBe(created.id);

    const done = await client.batches.wait(created.id, { pollIntervalMs: 300, timeoutMs: 20_000 });
    expect(done).toMatchObject({ status: 'completed', credits_charged: 12, finished_at: expect.any(String), request_counts: { total: 3, completed: 3 } });
    const results = await all(client.batches.results(created.id));
    expect(results.map((r) => [r.line, r.custom_id, r.outcome, r.error])).toEqual([
      [1, 'clip-1', 'completed', null],
      [2, 'clip-2', 'completed', null],
      [3, 'clip-3', 'completed', null],
    ]);
    expect(results[0].generation).toMatchObject({ status: 'completed', model: 'quick-audio-1', prompt: 'clip number 1', credits_charged: 4 });
    expect(await all(client.batches.errors(created.id))).toEqual([]);
    expect((await client.credits.get()).available).toBe(100 - 12);
    expect(await client.batches.get(created.id)).toEqual(done);
  });

  it('a file with bad lines is refused whole, each bad line in error.lines; with invalidLines skip the good ones run and the bad ones are in the errors file', async () => {
    const client = await clientOf();
    const file = [JSON.stringify(line(1)), JSON.stringify({ ...line(2), body: { ...line(2).body, model: 'fox-9' } }), '{"custom_id": "clip-3", '].join('\n');
    const refused = await client.batches.create(file).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GenerationApiError);
    expect(refused).toMatchObject({ code: 'validation_error', status: 422 });
    expect((refused as GenerationApiError).lines).toEqual([
      { line: 2, custom_id: 'clip-2', message: expect.stringContaining('fox-9') },
      { line: 3, custom_id: null, message: expect.any(String) },
    ]);
    expect(await all(client.batches.list())).toEqual([]);

    const skipped = await client.batches.create(new TextEncoder().encode(file), { invalidLines: 'skip' });
    expect(skipped.request_counts).toMatchObject({ total: 3, invalid: 2 });
    expect(await client.batches.wait(skipped.id, { pollIntervalMs: 300, timeoutMs: 20_000 })).toMatchObject({ status: 'completed', request_counts: { completed: 1, invalid: 2 } });
    expect((await all(client.batches.results(skipped.id))).map((r) => r.custom_id)).toEqual(['clip-1']);
    const errors: BatchLineResult[] = await all(client.batches.errors(skipped.id));
    expect(errors.map((r) => [r.line, r.outcome, r.generation, r.error?.code])).toEqual([
      [2, 'invalid', null, 'validation_error'],
      [3, 'invalid', null, 'validation_error'],
    ]);
  });

  it('creates from an uploaded JSONL file with metadata, and lists every page newest first', async () => {
    const client = await clientOf();
    const upload = await client.uploads.create(new TextEncoder().encode(`${JSON.stringify(line(1))}\n`), { contentType: 'application/jsonl' });
    const fromUpload = await client.batches.create({ inputFileId: upload.id }, { metadata: { run: 'nightly' }, completionWindow: '2h' });
    expect(fromUpload).toMatchObject({ metadata: { run: 'nightly' }, completion_window: '2h', request_counts: { total: 1 } });
    await expect(client.batches.create([line(1)], { metadata: { run: 'x' } })).rejects.toThrow(TypeError);

    const made: Batch[] = [fromUpload];
    for (let i = 2; i <= 3; i++) made.push(await client.batches.create([line(i)]));
    expect((await all(client.batches.list({ limit: 2 }))).map((b) => b.id)).toEqual(made.map((b) => b.id).reverse());
    const first = await client.batches.page({ limit: 2 });
    expect(first.data).toHaveLength(2);
    expect((await all(client.batches.list({ cursor: first.next_cursor ?? undefined }))).map((b) => b.id)).toEqual([fromUpload.id]);
  });

  it('cancels a batch: lines not admitted are canceled, running ones finish; the errors file gives the canceled lines', async () => {
    const client = await clientOf();
    const batch = await client.batches.create([1, 2, 3, 4, 5].map((n) => line(n, 'held-audio-2')));
    // pro runs three at once, and its batches leave one of the three free (BATCH_KEEP_FREE_PERCENT):
    // two run, the other three wait.
    let running = batch;
    for (let i = 0; i < 100 && running.request_counts.processing < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      running = await client.batches.get(batch.id);
    }
    expect(running.request_counts).toMatchObject({ processing: 2, waiting: 3 });

    const canceling = await client.batches.cancel(batch.id);
    expect(canceling).toMatchObject({ status: 'canceling', canceled_at: expect.any(String), request_counts: { canceled: 3, processing: 2 } });
    expect((await client.batches.cancel(batch.id)).status).toBe('canceling');
    hold.releaseAll();
    const canceled = await client.batches.wait(batch.id, { pollIntervalMs: 300, timeoutMs: 20_000 });
    expect(canceled).toMatchObject({ status: 'canceled', credits_charged: 20, request_counts: { completed: 2, canceled: 3 } });
    expect((await all(client.batches.results(batch.id))).map((r) => r.line)).toEqual([1, 2]);
    expect((await all(client.batches.errors(batch.id))).map((r) => [r.line, r.outcome, r.error?.code])).toEqual([
      [3, 'canceled', 'canceled'],
      [4, 'canceled', 'canceled'],
      [5, 'canceled', 'canceled'],
    ]);
  });

  it('an unknown batch is the envelope, from a read and from its results file', async () => {
    const client = await clientOf();
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(client.batches.get(missing)).rejects.toMatchObject({ name: 'GenerationApiError', code: 'not_found', status: 404, requestId: expect.any(String) });
    await expect(client.batches.results(missing).next()).rejects.toMatchObject({ code: 'not_found', status: 404 });
  });
});
