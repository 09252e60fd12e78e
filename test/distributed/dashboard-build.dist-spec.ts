import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { StandaloneProcess, startStandaloneProcess } from '../support/standalone-process';

const ROOT = join(__dirname, '..', '..');

/** The assets a page of the dashboard loads (its script and style sheet). */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
}

/** `npm run build:dashboard` (Vite with the project's config) into DASHBOARD_DIR; resolves with its exit code. */
function buildDashboard(target: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'apps/dashboard/vite.config.mts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DASHBOARD_DIR: target },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

/**
 * A dashboard build while a server serves the folder it builds into: every page load during the
 * build gets an index.html whose assets all answer (the folder is never emptied), and afterwards the
 * folder holds the new build and the one before it, nothing older.
 */
describe('the dashboard build, while a server serves its folder', () => {
  let parent: string;
  let served: string;
  let database: TestDatabase;
  let service: StandaloneProcess | undefined;

  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'gen-dashboard-build-'));
    chmodSync(parent, 0o755);
    served = join(parent, 'dashboard');
    // An older build being served: its own index and assets, and a build older still, listed as such.
    cpSync(join(ROOT, 'dist', 'apps', 'dashboard', 'index.html'), join(served, 'index.html'));
    const real = readFileSync(join(served, 'index.html'), 'utf8');
    const old = real.replace(/assets\/index-[^"]+\.js/, 'assets/index-OLDBUILD.js').replace(/assets\/index-[^"]+\.css/, 'assets/index-OLDBUILD.css');
    writeFileSync(join(served, 'index.html'), old);
    mkdirSync(join(served, 'assets'));
    writeFileSync(join(served, 'assets', 'index-OLDBUILD.js'), 'console.log("the previous build");\n');
    writeFileSync(join(served, 'assets', 'index-OLDBUILD.css'), 'body { color: black }\n');
    writeFileSync(join(served, 'assets', 'index-ANCIENT.js'), 'console.log("two builds ago");\n');
    writeFileSync(
      join(served, '.build-files.json'),
      JSON.stringify({ current: ['index.html', 'assets/index-OLDBUILD.js', 'assets/index-OLDBUILD.css'], previous: ['assets/index-ANCIENT.js'] }),
    );
    database = await createTestDatabase('dashboard_build');
    service = await startStandaloneProcess({ DATA_DIR: join(parent, 'data'), DATABASE_URL: database.url, DASHBOARD_DIR: served });
  });
  afterAll(async () => {
    service?.kill();
    await database?.drop();
    rmSync(parent, { recursive: true, force: true });
  });

  /** Loads the dashboard and its assets over and over until `done` resolves; every answer that was not 200. */
  async function loadWhile(done: Promise<unknown>): Promise<{ loads: number; failures: string[] }> {
    let finished = false;
    void done.then(() => (finished = true));
    const failures: string[] = [];
    let loads = 0;
    while (!finished) {
      const page = await fetch(`${(service as StandaloneProcess).url}/dashboard/`);
      const html = await page.text();
      if (page.status !== 200) failures.push(`/dashboard/ -> ${page.status}`);
      for (const asset of assetsOf(html)) {
        const res = await fetch(`${(service as StandaloneProcess).url}${asset}`);
        await res.arrayBuffer();
        if (res.status !== 200) failures.push(`${asset} -> ${res.status}`);
      }
      loads++;
    }
    return { loads, failures };
  }

  it('never empties the served folder: every load during the build finds its page and assets', async () => {
    const build = buildDashboard(served);
    const during = await loadWhile(build);
    const { code, output } = await build;
    expect({ code, output }).toEqual({ code: 0, output: expect.any(String) });
    expect(during.failures).toEqual([]);
    expect(during.loads).toBeGreaterThan(0);

    // The new build is served; the previous one's assets stay (an open tab may still load them); the older one is gone.
    const html = await (await fetch(`${(service as StandaloneProcess).url}/dashboard/`)).text();
    expect(assetsOf(html).every((asset) => !asset.includes('OLDBUILD'))).toBe(true);
    const files = readdirSync(join(served, 'assets'));
    expect(files).toEqual(expect.arrayContaining(['index-OLDBUILD.js', 'index-OLDBUILD.css']));
    expect(files).not.toContain('index-ANCIENT.js');
    expect(readdirSync(parent).filter((name) => name.startsWith('dashboard.build-'))).toEqual([]);
  });

  it('a second build leaves the last two builds only', async () => {
    const { code } = await buildDashboard(served);
    expect(code).toBe(0);
    const files = readdirSync(join(served, 'assets'));
    expect(files).not.toContain('index-OLDBUILD.js');
    const html = readFileSync(join(served, 'index.html'), 'utf8');
    for (const asset of assetsOf(html)) expect(existsSync(join(served, asset.replace('/dashboard/', '')))).toBe(true);
  });
});
