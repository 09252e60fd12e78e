import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, http, TestDatabase } from '@gen/testing';
import { runCli } from '../support/cli';
import { StandaloneProcess, startStandaloneProcess } from '../support/standalone-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The operator's CLI against a running standalone process (`npm start`; here on the PostgreSQL
 * server, which this suite's environment provides): a model added is generated with within 5 s.
 */
describe('standalone process: models managed with the CLI while it runs', () => {
  let database: TestDatabase;
  let dataDir: string;
  let service: StandaloneProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('standalone_catalogue');
    dataDir = mkdtempSync(join(tmpdir(), 'gen-standalone-'));
    service = await startStandaloneProcess({ DATA_DIR: dataDir, DATABASE_URL: database.url, ENGINE_LATENCY_SCALE: '0' });
  });
  afterAll(async () => {
    service?.kill();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('models add, then a generation with it within 5 s; models disable, then 422', async () => {
    const { url, demoKey: key } = service as StandaloneProcess;
    const added = runCli(
      database.url,
      'models', 'add', '--id', 'cli-voice-1', '--name', 'CLI voice', '--type', 'TEXT_TO_AUDIO',
      '--credits', '2', '--minimum', '2', '--plan', 'free', '--sync', 'false', '--engine', '{"engine":"voice","wordsPerMinute":200}',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Added cli-voice-1');

    const started = Date.now();
    let submitted = await http(url, 'POST', '/api/v1/generate', { key, body: { model: 'cli-voice-1', prompt: 'hello from the catalogue', type: 'TEXT_TO_AUDIO' } });
    while (submitted.status !== 202 && Date.now() - started < 5_000) {
      await sleep(100);
      submitted = await http(url, 'POST', '/api/v1/generate', { key, body: { model: 'cli-voice-1', prompt: 'hello from the catalogue', type: 'TEXT_TO_AUDIO' } });
    }
    expect(submitted.status).toBe(202);
    let record = submitted.body;
    while (record.status !== 'completed' && record.status !== 'failed') {
      await sleep(100);
      record = (await http(url, 'GET', `/api/v1/generations/${record.id}`, { key })).body;
    }
    expect(record).toMatchObject({ status: 'completed', credits_charged: 2, model: 'cli-voice-1' });

    expect(runCli(database.url, 'models', 'disable', '--id', 'cli-voice-1').code).toBe(0);
    let refused = submitted;
    const disabledAt = Date.now();
    while (refused.status !== 422 && Date.now() - disabledAt < 5_000) {
      await sleep(100);
      refused = await http(url, 'POST', '/api/v1/generate', { key, body: { model: 'cli-voice-1', prompt: 'again', type: 'TEXT_TO_AUDIO' } });
    }
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toContain('is not available');
  });
});
