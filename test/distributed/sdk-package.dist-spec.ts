import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@gen/persistence';
import { runCliWith } from '../support/cli';
import { StandaloneProcess, startStandaloneProcess } from '../support/standalone-process';

const ROOT = join(__dirname, '..', '..');
const SDK = join(ROOT, 'libs', 'sdk');
const FIXTURES = join(__dirname, 'sdk-package');

/**
 * The TypeScript SDK as a customer gets it: `npm pack` of libs/sdk, installed from the tarball into
 * an empty folder (no registry), then scripts there (ESM, CommonJS, and a type check against the
 * packed declarations) that generate, wait, cancel and verify a webhook against a running standalone.
 */
describe('the packed TypeScript SDK, installed in an empty folder', () => {
  let parent: string;
  let server: StandaloneProcess;
  let app: string;

  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'gen-sdk-pack-'));
    // Reachable by the user postgres when this runs as root (mkdtemp makes mode 700).
    chmodSync(parent, 0o755);
    server = await startStandaloneProcess({ DATA_DIR: join(parent, 'data'), LOG_LEVEL: 'warn' });

    execFileSync(process.execPath, [join(SDK, 'build.mjs')], { stdio: 'pipe' });
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', parent], { cwd: SDK, encoding: 'utf8' })) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    app = join(parent, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sdk-pack-check', private: true, version: '1.0.0' }));
    const tarball = join(parent, packed[0].filename);
    const install = spawnSync('npm', ['install', tarball, '--no-audit', '--no-fund', '--ignore-scripts', '--offline'], { cwd: app, encoding: 'utf8' });
    expect({ code: install.status, stderr: install.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    for (const file of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, file), join(app, file));
  }, 180_000);
  afterAll(() => {
    server?.kill();
    if (parent) rmSync(parent, { recursive: true, force: true });
  });

  it('holds only the built package: ESM, CommonJS, declarations, README; no dependencies', () => {
    const installed = join(app, 'node_modules', '@generation-service', 'sdk');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    for (const file of ['dist/esm/index.js', 'dist/cjs/index.js', 'dist/types/index.d.ts', 'README.md']) expect(existsSync(join(installed, file))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    expect(readdirSync(join(app, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['@generation-service']);
  });

  it('require() works (CommonJS) and verifies a known signature', () => {
    const run = spawnSync(process.execPath, ['check.cjs'], { cwd: app, encoding: 'utf8' });
    expect({ code: run.status, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ client: 'function', timestamp: 1700000000 });
  });

  it('its declarations type-check a customer file (the event union narrows)', () => {
    // A customer's strict settings, with no Node types: the declarations need none.
    const compilerOptions = { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check-types.ts'] }));
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], { cwd: app, encoding: 'utf8' });
    expect({ code: run.status, out: run.stdout }).toEqual({ code: 0, out: '' });
  });

  it("the customer guide's TypeScript examples type-check against the packed declarations", () => {
    // Every ```ts block of docs/guide/quickstart.md, in order, as one ES module (they share the client).
    const guide = readFileSync(join(ROOT, 'docs', 'guide', 'quickstart.md'), 'utf8');
    const blocks = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    writeFileSync(join(app, 'guide.mts'), blocks.join('\n'));
    const compilerOptions = { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] };
    writeFileSync(join(app, 'tsconfig.guide.json'), JSON.stringify({ compilerOptions, files: ['guide.mts', 'guide-stubs.d.ts'] }));
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(app, 'tsconfig.guide.json')], { cwd: app, encoding: 'utf8' });
    expect({ code: run.status, out: run.stdout }).toEqual({ code: 0, out: '' });
  });

  it('generates, waits, cancels and verifies the signed webhooks (ESM) against a running standalone', async () => {
    const env = { DATA_DIR: join(parent, 'data') };
    const account = runCliWith(env, 'accounts', 'create', '--name', 'Packed', '--plan', 'pro', '--credits', '1000', '--json');
    expect(account.code).toBe(0);
    const hookPort = await freePort();
    const hooked = runCliWith(
      env,
      'keys',
      'set-webhook-url',
      '--account',
      account.json.account_id,
      '--key',
      account.json.api_key.id,
      '--url',
      `http://127.0.0.1:${hookPort}/hook`,
      '--json',
    );
    expect(hooked.code).toBe(0);
    const run = spawnSync(process.execPath, ['check.mjs'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: process.env.PATH, BASE_URL: server.url, API_KEY: account.json.api_key.key, WEBHOOK_SECRET: hooked.json.webhook_secret, HOOK_PORT: String(hookPort) },
    });
    expect({ code: run.status, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const summary = JSON.parse(run.stdout.trim().split('\n').pop() as string);
    expect(summary).toMatchObject({
      image: 'completed',
      audio: 'completed',
      canceled: { status: 'failed', credits_charged: 0, canceled: true },
      conflict: { code: 'conflict', status: 409, requestId: 'string' },
      tampered: 'signature_mismatch',
    });
    expect([...summary.verified].sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id))).toEqual(
      [
        { event: 'generation.completed', id: summary.ids.image, scheme: 'service' },
        { event: 'generation.completed', id: summary.ids.audio, scheme: 'service' },
        { event: 'generation.failed', id: summary.ids.video, scheme: 'service' },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });
});
