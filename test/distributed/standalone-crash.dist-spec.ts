import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@gen/persistence';
import { http } from '@gen/testing';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'apps', 'standalone', 'src', 'main.js');
const CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** PostgreSQL servers running on `dataDir` (any `postgres -D <dataDir>` on this machine), with their parents. */
function postmastersOf(dataDir: string): Array<{ pid: number; ppid: number }> {
  const found: Array<{ pid: number; ppid: number }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\u0000');
      if (!args[0].endsWith('/postgres') || args[args.indexOf('-D') + 1] !== dataDir) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      found.push({ pid: Number(entry), ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(env: Record<string, string>): Started {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function until<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs: number, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(intervalMs);
  }
}

/** The demo key's plan allows 60 requests a minute: API reads are paced under it (one list a 1.5 s). */
const API_POLL_MS = 1_500;

/**
 * `npm start`'s process on the embedded PostgreSQL (no DATABASE_URL), killed with SIGKILL mid-job:
 * its postmaster is left running (re-parented); the CLI and the next start on the same data find it
 * and stop it (never another's), the jobs then finish, and a clean stop leaves no postmaster behind.
 */
describe('standalone on embedded PostgreSQL: kill -9, then start again on the same data', () => {
  let dataDir: string;
  const running: Started[] = [];

  beforeAll(() => {
    // Reachable by the user postgres (mkdtemp makes mode 700, which root's PostgreSQL could not enter).
    const parent = mkdtempSync(join(tmpdir(), 'gen-crash-'));
    chmodSync(parent, 0o755);
    dataDir = join(parent, 'data');
  });
  afterAll(async () => {
    for (const r of running) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    for (const { pid } of postmastersOf(join(dataDir, 'pg'))) process.kill(pid, 'SIGINT');
    await sleep(500);
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('the jobs finish after the restart, no hand needed, and no postmaster is left', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { PORT: String(port), DATA_DIR: dataDir, PUBLIC_BASE_URL: url, ENGINE_LATENCY_SCALE: '2', JOB_LEASE_MS: '2000', JOB_POLL_INTERVAL_MS: '200' };

    const first = start(env);
    running.push(first);
    const key = (await until('the demo key', () => /API key: (gsk_live_[A-Za-z0-9]+)/.exec(first.output())?.[1], Boolean, 60_000)) as string;
    const types: Record<string, string> = { 'motion-lite-1': 'TEXT_TO_VIDEO', 'tone-weaver-1': 'TEXT_TO_AUDIO', 'mesh-smith-1': 'TEXT_TO_3D' };
    const ids: string[] = [];
    for (const [model, type] of Object.entries(types)) {
      const res = await http(url, 'POST', '/api/v1/generate', { key, body: { model, prompt: `crash ${model}`, type } });
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    await until('a job to be running', () => http(url, 'GET', `/api/v1/generations/${ids[0]}`, { key }).then((r) => r.body.status), (s) => s === 'processing', 10_000, 500);

    first.child.kill('SIGKILL');
    await first.exited;
    const orphans = postmastersOf(join(dataDir, 'pg'));
    expect(orphans).toHaveLength(1);
    expect(orphans[0].ppid).not.toBe(first.child.pid);

    // The CLI on the same data, before any restart: it takes the orphan over instead of failing.
    const cli = spawnSync(process.execPath, [CLI, 'jobs', 'list', '--status', 'processing'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: cli.status, stderr: cli.stderr }).toEqual({ status: 0, stderr: `Standalone data: ${dataDir} (DATA_DIR=${dataDir})\n` });
    expect(cli.stdout).toContain(ids[0]);
    expect(postmastersOf(join(dataDir, 'pg'))).toEqual([]);

    // Killed again, this time leaving the orphan for the server's own start.
    const second = start(env);
    running.push(second);
    await until('the second start', () => http(url, 'GET', '/readyz').then((r) => r.status).catch(() => 0), (s) => s === 200, 60_000);
    second.child.kill('SIGKILL');
    await second.exited;
    expect(postmastersOf(join(dataDir, 'pg'))).toHaveLength(1);

    const third = start(env);
    running.push(third);
    await until('the third start', () => http(url, 'GET', '/readyz').then((r) => r.status).catch(() => 0), (s) => s === 200, 60_000);
    expect(third.output()).not.toContain('undefined');
    const records = await until(
      'every job to complete',
      async () => {
        const page = (await http(url, 'GET', '/api/v1/generations?limit=10', { key })).body as { data?: Array<{ id: string; status: string; credits_charged: number }> };
        return ids.map((id) => page.data?.find((r) => r.id === id) ?? { id, status: 'unknown', credits_charged: 0 });
      },
      (rs) => rs.every((r) => r.status === 'completed'),
      90_000,
      API_POLL_MS,
    );
    expect(records.map((r) => r.credits_charged)).toEqual([40, 10, expect.any(Number)]);
    const credits = await until('billing to settle', () => http(url, 'GET', '/api/v1/credits', { key }).then((r) => r.body), (b) => b.held === 0, 20_000, API_POLL_MS);
    expect(credits.available).toBe(1000 - records.reduce((sum, r) => sum + r.credits_charged, 0));

    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
    expect(postmastersOf(join(dataDir, 'pg'))).toEqual([]);
  });

  it('a second server on data whose server is alive is refused in one line, and the first keeps running', async () => {
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: dataDir, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` };
    const owner = start(env);
    running.push(owner);
    await until('the owner to start', () => http(`http://127.0.0.1:${port}`, 'GET', '/readyz').then((r) => r.status).catch(() => 0), (s) => s === 200, 60_000);
    const intruder = start({ ...env, PORT: String(await freePort()) });
    running.push(intruder);
    expect(await intruder.exited).toBe(1);
    expect(intruder.output().trim()).toBe(
      `Failed to start: The embedded PostgreSQL of ${join(dataDir, 'pg')} is already run by process ${owner.child.pid}, which is still running: ` +
        'stop that process first (or give this one another DATA_DIR).',
    );
    expect((await http(`http://127.0.0.1:${port}`, 'GET', '/readyz')).status).toBe(200);
    owner.child.kill('SIGTERM');
    expect(await owner.exited).toBe(0);
  });
});

/**
 * Containers and CI run as root, and root's own folders (/root, anything made by `mktemp -d`) are
 * mode 700: PostgreSQL, which runs as the user postgres there, cannot enter them.
 */
describe('standalone as root with its data under a mode-700 folder', () => {
  let parent: string;
  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), 'gen-private-')); // mode 700, owned by this user
  });
  afterAll(() => {
    for (const { pid } of postmastersOf(join(parent, 'data', 'pg'))) process.kill(pid, 'SIGINT');
    rmSync(parent, { recursive: true, force: true });
  });

  it(isRoot ? 'stops at once with one line naming the folder and the fix' : 'starts (not root: PostgreSQL runs as this user, who can enter the folder)', async () => {
    const port = await freePort();
    const started = start({ PORT: String(port), DATA_DIR: join(parent, 'data'), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    if (!isRoot) {
      await until('the start', () => http(`http://127.0.0.1:${port}`, 'GET', '/readyz').then((r) => r.status).catch(() => 0), (s) => s === 200, 60_000);
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
      return;
    }
    expect(await started.exited).toBe(1);
    const lines = started.output().trim().split('\n');
    expect(lines).toEqual([expect.stringMatching(/^Failed to start: Cannot start the embedded PostgreSQL: this process runs as root/)]);
    expect(lines[0]).toContain(`cannot enter ${parent} (mode 700, owner uid 0)`);
    expect(lines[0]).toContain('Fix: set DATA_DIR to a folder that user can reach');
    expect(postmastersOf(join(parent, 'data', 'pg'))).toEqual([]);
  });
});
