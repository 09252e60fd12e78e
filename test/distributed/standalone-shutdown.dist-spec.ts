import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@gen/persistence';
import { createTestDatabase, http, TestDatabase } from '@gen/testing';

const ROOT = join(__dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `npm start`'s process (standalone, built) on SIGTERM: readiness turns 503, a request in flight is
 * answered, and the process exits 0 with its "stopped cleanly" line. (Here on the PostgreSQL server
 * rather than the embedded one, which this suite's environment does not start.)
 */
describe('standalone process: graceful shutdown', () => {
  let database: TestDatabase;
  let dataDir: string;
  let child: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    database = await createTestDatabase('standalone');
    dataDir = mkdtempSync(join(tmpdir(), 'gen-standalone-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the request in flight and exits 0', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', 'standalone', 'src', 'main.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        PUBLIC_BASE_URL: url,
        // pixel-flux-1 takes 150 ms x 4: long enough to be in flight at SIGTERM.
        ENGINE_LATENCY_SCALE: '4',
        SHUTDOWN_DELAY_MS: '500',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));

    let key: string | undefined;
    for (let i = 0; i < 300 && !key; i++) {
      key = /API key: (gsk_live_[A-Za-z0-9]+)/.exec(output)?.[1];
      if (!key) await sleep(100);
    }
    expect(key).toBeDefined();
    expect((await http(url, 'GET', '/readyz')).status).toBe(200);

    const inFlight = http(url, 'POST', '/api/v1/generate', {
      key,
      body: { model: 'pixel-flux-1', prompt: 'a lighthouse at closing time', type: 'TEXT_TO_IMAGE' },
    });
    await sleep(150);
    child.kill('SIGTERM');
    await sleep(100);
    const ready = await http(url, 'GET', '/readyz');
    expect(ready.status).toBe(503);

    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'completed', credits_charged: 4 });
    expect(await exited).toBe(0);
    expect(output).toContain('"msg":"SIGTERM received: draining and shutting down"');
    expect(output).toContain('"msg":"stopped cleanly"');
    // The demo key is printed once on purpose (the start-up banner); no log line carries it.
    const logLines = output.split('\n').filter((line) => line.startsWith('{'));
    // Among them the authenticated request's own line, the one that would carry it if any did.
    expect(logLines.filter((line) => line.includes('"path":"/api/v1/generate"') && line.includes('"status":200'))).toHaveLength(1);
    expect(logLines.filter((line) => line.includes(key as string))).toEqual([]);
  });
});
