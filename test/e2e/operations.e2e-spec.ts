import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { http } from '@gen/testing';
import { startStandaloneHarness, StandaloneHarness } from '../support/standalone-harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Operations seen by a client of a standalone server (docs/operations.md): changes made beside the
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
    });
  });
});
