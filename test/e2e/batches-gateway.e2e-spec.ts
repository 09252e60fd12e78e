import type { BatchLineResult, BatchView } from '@gen/contracts';
import { ApiKeysService, GatewayJanitorService } from '@gen/gateway';
import { http, HttpResult } from '@gen/testing';
import { newWebhookSecret } from '@gen/webhook-signature';
import { DashboardClient, testEmail } from '../support/dashboard-client';
import { testModel } from '../support/factories';
import { HoldEngine } from '../support/hold-engine';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

type Account = { accountId: string; key: string; keyId: string };

const line = (customId: string, model: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: customId, body: { model, prompt: `prompt of ${customId}`, type: 'TEXT_TO_AUDIO', ...extra } });

/** POST a raw body (a JSONL file) as `http` answers. */
async function post(base: string, path: string, key: string, body: string | Buffer, contentType: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers }, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

const jsonlLines = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as BatchLineResult);

/**
 * The gateway's side of batches (docs/guide/batches.md) through the HTTP API, in standalone on real
 * PostgreSQL: creating one from the body or an upload, refusing or skipping bad lines, the size
 * limit, Idempotency-Key, reading, listing and canceling, the results and errors files, and the
 * credits charged at the batch price.
 */
describe('batches: the HTTP API (standalone)', () => {
  let h: StandaloneHarness;
  const hold = new HoldEngine('hold');

  beforeAll(async () => {
    h = await startStandaloneHarness(
      { BATCH_MAX_MB: '1' },
      {
        engines: { hold },
        models: [
          testModel({ id: 'quick-batch-1', engine: 'instant', synchronous: false, credits: 5, batchCredits: 3, type: 'TEXT_TO_AUDIO' }),
          testModel({ id: 'quick-plain-1', engine: 'instant', synchronous: false, credits: 4, type: 'TEXT_TO_AUDIO' }),
          testModel({ id: 'held-batch-1', engine: 'hold', synchronous: false, credits: 2, type: 'TEXT_TO_AUDIO' }),
        ],
      },
    );
  });
  afterAll(async () => {
    hold.releaseAll();
    await h?.close();
  });

  const create = (a: Account, file: string, query = '', headers: Record<string, string> = {}) =>
    post(h.url, `/api/v1/batches${query}`, a.key, file, 'application/jsonl', headers);
  const get = (a: Account, id: string) => http(h.url, 'GET', `/api/v1/batches/${id}`, { key: a.key });
  const file = async (a: Account, id: string, which: 'results' | 'errors') => {
    const res = await fetch(`${h.url}/api/v1/batches/${id}/${which}`, { headers: { authorization: `Bearer ${a.key}` } });
    return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
  };
  const credits = async (a: Account) => (await http<{ available: number; held: number }>(h.url, 'GET', '/api/v1/credits', { key: a.key })).body;
  async function ended(a: Account, id: string): Promise<BatchView> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const view = (await get(a, id)).body;
      if (['completed', 'canceled', 'expired'].includes(view.status)) return view;
      if (Date.now() > deadline) throw new Error(`batch ${id} did not end: ${JSON.stringify(view)}`);
      await sleep(100);
    }
  }

  it('creates a batch from a JSONL body, runs it, and charges the batch price (else the price) of each line', async () => {
    const a = await h.account('pro', 100);
    const before = await credits(a);
    const res = await create(a, [line('a', 'quick-batch-1'), line('b', 'quick-plain-1'), line('c', 'quick-batch-1', { metadata: { n: '3' } })].join('\r\n') + '\r\n', '?completion_window=2h');
    expect(res.status).toBe(201);
    const batch = res.body as BatchView;
    expect(res.headers.get('location')).toBe(`/api/v1/batches/${batch.id}`);
    expect(batch).toMatchObject({ object: 'batch', status: 'in_progress', completion_window: '2h', webhook_url: null, metadata: {} });
    expect(batch.request_counts.total).toBe(3);

    const done = await ended(a, batch.id);
    expect(done).toMatchObject({ status: 'completed', credits_charged: 3 + 4 + 3 });
    expect(done.request_counts).toMatchObject({ total: 3, completed: 3, invalid: 0, failed: 0 });
    expect((await credits(a)).available).toBe(before.available - 10);

    const results = await file(a, batch.id, 'results');
    expect(results.status).toBe(200);
    expect(results.contentType).toMatch(/^application\/jsonl/);
    const lines = jsonlLines(results.text);
    expect(lines.map((l) => [l.line, l.custom_id, l.outcome, l.generation?.status, l.generation?.credits_charged, l.error])).toEqual([
      [1, 'a', 'completed', 'completed', 3, null],
      [2, 'b', 'completed', 'completed', 4, null],
      [3, 'c', 'completed', 'completed', 3, null],
    ]);
    expect(lines[2].generation?.metadata).toEqual({ n: '3' });
    expect((await file(a, batch.id, 'errors')).text).toBe('');
  });

  it('refuses the whole file when a line is bad (reject, the default), naming the lines; nothing is created', async () => {
    const a = await h.account('pro', 100);
    const res = await create(a, [line('a', 'quick-batch-1'), '{not json', line('c', 'fox-9'), line('a', 'quick-batch-1')].join('\n'));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_error', status: 422 });
    expect(res.body.error.message).toMatch(/^3 of the file's 4 lines are not valid; no batch was created\. line 2: not valid JSON; line 3 \(custom_id "c"\): body: model: unknown model "fox-9"/);
    expect(res.body.error.lines).toEqual([
      { line: 2, custom_id: null, message: 'not valid JSON' },
      { line: 3, custom_id: 'c', message: 'body: model: unknown model "fox-9". See GET /api/v1/models.' },
      { line: 4, custom_id: null, message: 'custom_id "a" is used by line 1 already: each line needs its own' },
    ]);
    expect((await http(h.url, 'GET', '/api/v1/batches', { key: a.key })).body.data).toEqual([]);
  });

  it('runs the good lines and lists the bad ones as invalid with invalid_lines=skip, never charging them', async () => {
    const a = await h.account('pro', 100);
    const res = await create(a, [line('a', 'quick-batch-1'), line('b', 'quick-batch-1', { input: { colour: 'red' } }), JSON.stringify({ body: {} })].join('\n'), '?invalid_lines=skip');
    expect(res.status).toBe(201);
    const done = await ended(a, res.body.id);
    expect(done).toMatchObject({ status: 'completed', credits_charged: 3 });
    expect(done.request_counts).toMatchObject({ total: 3, completed: 1, invalid: 2 });
    const errors = jsonlLines((await file(a, done.id, 'errors')).text);
    expect(errors.map((l) => [l.line, l.custom_id, l.outcome, l.generation, l.error?.code])).toEqual([
      [2, 'b', 'invalid', null, 'validation_error'],
      [3, null, 'invalid', null, 'validation_error'],
    ]);
    expect(errors[1].error?.message).toBe('custom_id is required');
    expect((await credits(a)).available).toBe(97);
  });

  it('creates a batch from a JSONL upload (application/json naming it), with metadata and a webhook', async () => {
    const a = await h.account('pro', 100);
    const uploaded = await post(h.url, '/api/v1/uploads', a.key, `\uFEFF${line('u1', 'quick-plain-1')}\n${line('u2', 'quick-plain-1')}\n`, 'application/x-ndjson');
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ content_type: 'application/x-ndjson', id: expect.stringMatching(/^upl_/) });
    // A key with a signing secret may name a destination for batch.completed.
    await h.running.app.get(ApiKeysService).replaceWebhookSecret(a.accountId, a.keyId, newWebhookSecret());
    const res = await http<BatchView>(h.url, 'POST', '/api/v1/batches', {
      key: a.key,
      body: { input_file_id: uploaded.body.id, completion_window: '90m', metadata: { run: 'nightly' }, webhook_url: 'https://hooks.example.com/batches' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ completion_window: '90m', metadata: { run: 'nightly' }, webhook_url: 'https://hooks.example.com/batches' });
    expect((await ended(a, res.body.id)).credits_charged).toBe(8);

    const other = await h.account('pro', 100);
    const foreign = await http(h.url, 'POST', '/api/v1/batches', { key: other.key, body: { input_file_id: uploaded.body.id } });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.message).toMatch(/^input_file_id: no JSONL upload of this account has this id/);

    // Counted against the day's upload quota like media; refused once expired, then swept by the janitor.
    const [usage] = await h.running.databases.auth.query(`SELECT files, bytes::int AS bytes FROM auth.upload_usage WHERE account_id = $1`, [a.accountId]);
    expect(usage).toEqual({ files: 1, bytes: uploaded.body.bytes });
    await h.running.databases.auth.query(`UPDATE auth.upload_files SET expires_at = now() - interval '2 hours' WHERE id = $1`, [uploaded.body.id]);
    const expired = await http(h.url, 'POST', '/api/v1/batches', { key: a.key, body: { input_file_id: uploaded.body.id } });
    expect(expired.status).toBe(422);
    expect(expired.body.error.message).toMatch(/^input_file_id: this upload expired at /);
    await h.running.app.get(GatewayJanitorService).sweep();
    expect(await h.running.databases.auth.query(`SELECT id FROM auth.upload_files WHERE id = $1`, [uploaded.body.id])).toEqual([]);
  });

  it('refuses a body over BATCH_MAX_MB (413) and a form that is neither JSONL nor JSON (415)', async () => {
    const a = await h.account('pro', 100);
    const big = Array.from({ length: 2_000 }, (_, i) => line(`l${i}`, 'quick-plain-1', { metadata: { pad: 'x'.repeat(480) } })).join('\n');
    expect(Buffer.byteLength(big)).toBeGreaterThan(1024 * 1024);
    const tooLarge = await create(a, big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error).toMatchObject({ code: 'payload_too_large', message: "A batch's file is at most 1 MB (BATCH_MAX_MB); larger files do not fit one batch." });
    const text = await post(h.url, '/api/v1/batches', a.key, line('a', 'quick-plain-1'), 'text/plain');
    expect(text.status).toBe(415);
  });

  it('answers a repeat with the same Idempotency-Key with the first batch, and refuses the key with another file', async () => {
    const a = await h.account('pro', 100);
    const body = line('a', 'quick-batch-1');
    const first = await create(a, body, '', { 'idempotency-key': 'batch-1' });
    const again = await create(a, body, '', { 'idempotency-key': 'batch-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await create(a, line('b', 'quick-batch-1'), '', { 'idempotency-key': 'batch-1' });
    expect(other.status).toBe(422);
    expect((await http(h.url, 'GET', '/api/v1/batches', { key: a.key })).body.data).toHaveLength(1);
  });

  it('reads, lists and cancels batches; lines not run are canceled and not charged', async () => {
    const a = await h.account('pro', 100);
    const lines = Array.from({ length: 6 }, (_, i) => line(`h${i + 1}`, 'held-batch-1')).join('\n');
    const first = (await create(a, lines)).body as BatchView;
    const second = (await create(a, line('q', 'quick-plain-1'))).body as BatchView;
    const page = await http(h.url, 'GET', '/api/v1/batches?limit=1', { key: a.key });
    expect(page.status).toBe(200);
    expect(page.body.data.map((b: BatchView) => b.id)).toEqual([second.id]);
    const next = await http(h.url, 'GET', `/api/v1/batches?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key: a.key });
    expect(next.body.data.map((b: BatchView) => b.id)).toEqual([first.id]);

    const canceled = await http<BatchView>(h.url, 'POST', `/api/v1/batches/${first.id}/cancel`, { key: a.key });
    expect(canceled.status).toBe(200);
    expect(['canceling', 'canceled']).toContain(canceled.body.status);
    hold.releaseAll();
    const done = await ended(a, first.id);
    expect(done.status).toBe('canceled');
    const errors = jsonlLines((await file(a, first.id, 'errors')).text);
    expect(errors.length + done.request_counts.completed).toBe(6);
    expect(errors.every((l) => l.outcome === 'canceled')).toBe(true);
    expect(done.credits_charged).toBe(2 * done.request_counts.completed);

    expect((await get(a, UNKNOWN_ID)).body.error).toMatchObject({ code: 'not_found', message: `No batch with id "${UNKNOWN_ID}".` });
    expect((await get(a, 'nope')).body.error).toMatchObject({ code: 'not_found', message: 'No batch with that id.' });
    expect((await file(a, UNKNOWN_ID, 'results')).status).toBe(404);
    const stranger = await h.account('pro', 100);
    expect((await get(stranger, first.id)).status).toBe(404);
  });

  it("serves the dashboard's batch routes for the session's account: list, one, results, errors, cancel", async () => {
    const created = await h.running.provisioning.createAccountWithSignIn('batch team', testEmail('batches'), 'pro', 100);
    if (!created) throw new Error('account not created');
    const key = await h.running.provisioning.createKey(created.accountId, 'batch key');
    const a = { accountId: created.accountId, key: key.key, keyId: key.id };
    const batch = (await create(a, line('d1', 'quick-batch-1'))).body as BatchView;
    await ended(a, batch.id);

    const owner = new DashboardClient(h.url, { 'x-forwarded-for': '10.77.0.1' });
    expect((await owner.signIn(created.email, created.password)).status).toBe(200);
    const list = await owner.request('GET', '/batches?limit=5');
    expect(list.status).toBe(200);
    expect(list.body.data.map((b: BatchView) => b.id)).toEqual([batch.id]);
    expect((await owner.request('GET', `/batches/${batch.id}`)).body).toMatchObject({ id: batch.id, status: 'completed', credits_charged: 3 });
    const results = await owner.request('GET', `/batches/${batch.id}/results`);
    expect(results.headers.get('content-type')).toMatch(/^application\/jsonl/);
    expect(results.body).toMatchObject({ line: 1, custom_id: 'd1', outcome: 'completed' });
    expect((await owner.request('GET', `/batches/${batch.id}/errors`)).body).toBeUndefined();
    expect((await owner.request('POST', `/batches/${batch.id}/cancel`)).body).toMatchObject({ id: batch.id, status: 'completed' });
    expect((await owner.request('GET', `/batches/${UNKNOWN_ID}`)).status).toBe(404);
    // Another account's batch is not found from this session.
    const stranger = await h.account('pro', 10);
    const theirs = (await create(stranger, line('x', 'quick-batch-1'))).body as BatchView;
    expect((await owner.request('GET', `/batches/${theirs.id}`)).status).toBe(404);
  });
});
