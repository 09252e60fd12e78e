import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { eventually, http } from '@gen/testing';
import { startStandaloneHarness, StandaloneHarness } from '../support/standalone-harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Operations seen by a client of a standalone server (docs/operations/configure.md, "Changes seen at once"): changes made beside the
 * server (the CLI writes the database directly) seen by the next request, bodies clients send on
 * every request, and what the dashboard publishes.
 */
describe('operations (standalone)', () => {
  let h: StandaloneHarness;
  let staticDir: string;
  let sql: Client;

  beforeAll(async () => {
    staticDir = mkdtempSync(join(tmpdir(), 'gen-ops-static-'));
    mkdirSync(join(staticDir, 'assets'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>dashboard</title>');
    writeFileSync(join(staticDir, 'assets', 'index-abc123.js'), 'console.log(1);\n');
    writeFileSync(join(staticDir, 'assets', 'index-abc123.js.map'), '{"version":3,"sources":["secret.tsx"],"mappings":""}');
    // A copy of the catalogue that never expires by age: only a change's notice can refresh it.
    h = await startStandaloneHarness({ DASHBOARD_DIR: staticDir, CATALOGUE_MAX_STALE_MS: '3600000' });
    sql = new Client({ connectionString: h.database.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await h.close();
    rmSync(staticDir, { recursive: true, force: true });
  });

  describe('a catalogue change made beside the running server (the CLI writes the database)', () => {
    // The CLI takes far longer than this to exit after its commit; the notice takes a few milliseconds.
    const CLI_EXIT_MS = 50;
    const models = async (key: string) => (await http(h.url, 'GET', '/api/v1/models', { key })).body.data as Array<{ id: string; credits: number; available: boolean }>;
    const submit = (key: string, model: string) => http(h.url, 'POST', '/api/v1/generate', { key, body: { model, prompt: 'a lighthouse', type: 'TEXT_TO_IMAGE' } });

    it('is seen by the very next request: add, price, disable, enable', async () => {
      const { key } = await h.account('pro', 1000);
      await models(key); // the gateway holds a copy now
      expect((await submit(key, 'ops-new-model')).status).toBe(422);
      await sql.query(
        `INSERT INTO generation.models (id, name, type, credits, minimum_credits, synchronous, min_plan, status, engine, provider, description)
         VALUES ('ops-new-model', 'Ops new model', 'TEXT_TO_IMAGE', 7, 7, true, 'free', 'active', '{"engine": "image", "width": 64, "height": 64}', 'demo', '')`,
      );
      await sleep(CLI_EXIT_MS);
      const added = await submit(key, 'ops-new-model');
      expect({ status: added.status, message: added.body?.error?.message }).toEqual({ status: 200, message: undefined });
      expect(added.body.credits_charged).toBe(7);

      await sql.query(`UPDATE generation.models SET credits = 9, minimum_credits = 9 WHERE id = 'ops-new-model'`);
      await sleep(CLI_EXIT_MS);
      const priced = await submit(key, 'ops-new-model');
      expect(priced.body.credits_charged).toBe(9);

      await sql.query(`UPDATE generation.models SET status = 'disabled' WHERE id = 'ops-new-model'`);
      await sleep(CLI_EXIT_MS);
      const disabled = await submit(key, 'ops-new-model');
      expect(disabled.status).toBe(422);
      expect(disabled.body.error.message).toContain('disabled');

      await sql.query(`UPDATE generation.models SET status = 'active' WHERE id = 'ops-new-model'`);
      await sleep(CLI_EXIT_MS);
      expect((await submit(key, 'ops-new-model')).status).toBe(200);
      expect((await models(key)).find((m) => m.id === 'ops-new-model')).toMatchObject({ credits: 9, available: true });
    });
  });

  describe('one catalogue version per submit', () => {
    it('a price change that lands between the hold and the admission: the hold, the job and the charge keep the price the gateway checked', async () => {
      const { key, accountId } = await h.account('pro', 1000);
      await sql.query(
        `INSERT INTO generation.models (id, name, type, credits, minimum_credits, synchronous, min_plan, status, engine, provider, description)
         VALUES ('ops-version-1', 'Ops version', 'TEXT_TO_IMAGE', 4, 4, true, 'free', 'active', '{"engine": "image", "width": 64, "height": 64}', 'demo', '')`,
      );
      await sleep(50);
      const submit = () => http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'ops-version-1', prompt: 'a price', type: 'TEXT_TO_IMAGE' } });
      expect((await submit()).body.credits_charged).toBe(4); // every copy holds price 4 now
      // The change lands inside the hold's own transaction: committed (and announced) with the hold,
      // before the generation replica admits the job.
      await sql.query(`CREATE FUNCTION billing.ops_price_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE generation.models SET credits = 6, minimum_credits = 6 WHERE id = 'ops-version-1'; RETURN NULL; END $$`);
      await sql.query(`CREATE TRIGGER ops_price_change AFTER INSERT ON billing.holds FOR EACH ROW EXECUTE FUNCTION billing.ops_price_change()`);
      let res: Awaited<ReturnType<typeof submit>>;
      try {
        res = await submit();
      } finally {
        await sql.query(`DROP TRIGGER ops_price_change ON billing.holds`);
        await sql.query(`DROP FUNCTION billing.ops_price_change()`);
      }
      expect({ status: res.status, charged: res.body.credits_charged }).toEqual({ status: 200, charged: 4 });
      const [model] = (await sql.query<{ credits: number }>(`SELECT credits FROM generation.models WHERE id = 'ops-version-1'`)).rows;
      expect(model.credits).toBe(6); // the change did land
      const [job] = (await sql.query<{ credits: number }>('SELECT credits FROM generation.jobs WHERE id = $1', [res.body.id])).rows;
      const settled = await eventually(
        async () => (await sql.query<{ amount: number; status: string }>('SELECT amount, status FROM billing.holds WHERE job_id = $1', [res.body.id])).rows,
        (rows) => rows[0]?.status === 'captured',
        10_000,
      );
      const [capture] = (await sql.query<{ held_delta: string }>(`SELECT held_delta FROM billing.ledger WHERE job_id = $1 AND kind = 'capture'`, [res.body.id])).rows;
      expect({ job: job.credits, hold: settled[0].amount, capture: -Number(capture.held_delta) }).toEqual({ job: 4, hold: 4, capture: 4 });
      const [balance] = (await sql.query<{ available: string; held: string }>('SELECT available, held FROM billing.accounts WHERE account_id = $1', [accountId])).rows;
      expect({ available: Number(balance.available), held: Number(balance.held) }).toEqual({ available: 1000 - 8, held: 0 });
      // The next submit is checked, held and charged at the new price.
      expect((await submit()).body.credits_charged).toBe(6);
    });
  });

  describe('a plan change made beside the running server (the CLI writes the database)', () => {
    it('is seen by the very next request (the gateway keeps a plan 5 s otherwise)', async () => {
      const { key, accountId } = await h.account('free', 1000);
      const proOnly = async () => {
        const models = (await http(h.url, 'GET', '/api/v1/models', { key })).body.data as Array<{ id: string; min_plan: string; available: boolean; unavailable_reason: string | null }>;
        return models.filter((m) => m.min_plan === 'pro');
      };
      const before = await proOnly(); // the gateway holds the account's plan now
      expect(before.length).toBeGreaterThan(0);
      expect(before.every((m) => !m.available)).toBe(true);
      await sql.query(`UPDATE billing.accounts SET plan = 'pro' WHERE account_id = $1`, [accountId]);
      await sleep(50);
      const after = await proOnly();
      expect(after.filter((m) => m.unavailable_reason?.includes('plan'))).toEqual([]);
      const back = await sql.query(`UPDATE billing.accounts SET plan = 'free' WHERE account_id = $1`, [accountId]);
      expect(back.rowCount).toBe(1);
      await sleep(50);
      expect((await proOnly()).every((m) => !m.available)).toBe(true);
    });
  });

  describe('empty JSON bodies', () => {
    it('are no body on a route that takes none (cancel), with or without Content-Type', async () => {
      const { key } = await h.account('pro', 1000);
      const job = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'motion-lite-1', prompt: 'waves', type: 'TEXT_TO_VIDEO' } });
      expect(job.status).toBe(202);
      const canceled = await http(h.url, 'POST', `/api/v1/generations/${job.body.id}/cancel`, {
        key,
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      expect(canceled.status).toBe(200);
      expect(canceled.body.status).toBe('failed');
      const again = await http(h.url, 'POST', `/api/v1/generations/${job.body.id}/cancel`, { key, headers: { 'content-type': 'application/json; charset=utf-8' } });
      expect(again.status).toBe(200);
    });

    it('a body that is not empty must still be JSON; a route that takes a body says it is missing', async () => {
      const { key } = await h.account('pro', 1000);
      const job = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'motion-lite-1', prompt: 'waves', type: 'TEXT_TO_VIDEO' } });
      const broken = await http(h.url, 'POST', `/api/v1/generations/${job.body.id}/cancel`, { key, rawBody: '{', headers: { 'content-type': 'application/json' } });
      expect(broken.status).toBe(400);
      expect(broken.body.error).toMatchObject({ code: 'bad_request', message: 'The request body is not valid JSON.' });
      const empty = await http(h.url, 'POST', '/api/v1/generate', { key, rawBody: '', headers: { 'content-type': 'application/json' } });
      expect(empty.status).toBe(400);
      expect(empty.body.error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('The request body is empty') });
    });
  });

  describe('dashboard source maps', () => {
    it('are kept beside the build but not served by default (nor named in a header)', async () => {
      const map = await http(h.url, 'GET', '/dashboard/assets/index-abc123.js.map');
      expect(map.status).toBe(404);
      expect(map.text).not.toContain('secret.tsx');
      const script = await http(h.url, 'GET', '/dashboard/assets/index-abc123.js');
      expect(script.status).toBe(200);
      expect(script.headers.get('sourcemap')).toBeNull();
    });

    it('are served with DASHBOARD_SOURCE_MAPS=public, named by a SourceMap header', async () => {
      const open = await startStandaloneHarness({ DASHBOARD_DIR: staticDir, DASHBOARD_SOURCE_MAPS: 'public' });
      try {
        const script = await http(open.url, 'GET', '/dashboard/assets/index-abc123.js');
        expect(script.headers.get('sourcemap')).toBe('index-abc123.js.map');
        const map = await http(open.url, 'GET', '/dashboard/assets/index-abc123.js.map');
        expect(map.status).toBe(200);
        expect(map.text).toContain('secret.tsx');
      } finally {
        await open.close();
      }
      // A whole second service started and stopped inside the test: 30 s ran out on a loaded CI machine.
    }, 120_000);
  });
});
