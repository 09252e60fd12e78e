import { ChildProcess, execFile, spawn } from 'node:child_process';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';

/** The repository: this file runs from dist/bench/support (a bench) or from bench/support (a spec under jest). */
export const ROOT = basename(join(__dirname, '..', '..')) === 'dist' ? join(__dirname, '..', '..', '..') : join(__dirname, '..', '..');
const run = promisify(execFile);

/** One app of dist/ as a child process, its output kept (tail) for when something goes wrong. */
export class AppProcess {
  private output = '';
  private child?: ChildProcess;
  private exited: Promise<void> = Promise.resolve();
  exitInfo: string | null = null;

  constructor(
    readonly label: string,
    private readonly script: string,
    private readonly env: NodeJS.ProcessEnv,
    /** The checkout whose dist/ it runs (bench:rolling starts the previous release's from its own). */
    private readonly root: string = ROOT,
  ) {}

  start(): void {
    // BENCH_CPU_PROF_DIR: each service process writes a V8 CPU profile there when it stops (where the time goes).
    const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
    const child = spawn(process.execPath, [...profile, join(this.root, 'dist', this.script)], { cwd: this.root, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: string) => (this.output = (this.output + chunk).slice(-20_000));
    child.stdout?.setEncoding('utf8').on('data', keep);
    child.stderr?.setEncoding('utf8').on('data', keep);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exitInfo = signal ? `signal ${signal}` : `code ${code}`;
        resolve();
      }),
    );
    live.add(this);
  }

  /** The process id while it runs (its RSS and CPU time are read from /proc). */
  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  get running(): boolean {
    return this.child !== undefined && this.exitInfo === null;
  }

  /** Waits until the output matches `pattern` (start-up line), failing early if the process exits. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.output)) {
      if (!this.running) throw new Error(`${this.label} exited (${this.exitInfo}) before it was ready:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`${this.label} not ready after ${timeoutMs} ms:\n${this.output}`);
      await sleep(50);
    }
  }

  /** Waits until `readyUrl` (its /readyz) answers 200, failing early if the process exits. */
  async waitReady(readyUrl: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.label} exited (${this.exitInfo}) before it was ready:\n${this.output}`);
      const status = await request(readyUrl, { headersTimeout: 2_000, bodyTimeout: 2_000 }).then(
        async (res) => {
          await res.body.dump();
          return res.statusCode;
        },
        () => 0,
      );
      if (status === 200) return;
      if (Date.now() > deadline) throw new Error(`${this.label} not ready after ${timeoutMs} ms (${readyUrl}: ${status || 'no answer'}):\n${this.output}`);
      await sleep(100);
    }
  }

  async stop(): Promise<void> {
    if (!this.running || !this.child) return;
    this.child.kill('SIGTERM');
    const timer = sleep(8_000).then(() => 'timeout' as const);
    if ((await Promise.race([this.exited.then(() => 'exited' as const), timer])) === 'timeout') {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    live.delete(this);
  }

  /** Synchronous SIGKILL (from an exit handler, where nothing can be awaited). */
  killNow(): void {
    if (this.running) this.child?.kill('SIGKILL');
  }

  tail(): string {
    return this.output;
  }
}

/** Children still running if the bench itself dies are killed with it. */
const live = new Set<AppProcess>();
process.once('exit', () => {
  for (const app of live) app.killNow();
});

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs the operator CLI of dist/ against `databaseUrl`; resolves with its stdout. */
export async function cli(databaseUrl: string, args: string[], options: { root?: string; env?: Record<string, string> } = {}): Promise<string> {
  const root = options.root ?? ROOT;
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl, ...options.env };
  return (await run(process.execPath, [join(root, 'dist', 'apps', 'cli', 'src', 'main.js'), ...args], { cwd: root, env })).stdout;
}

/**
 * Binds a catalogue model to the `instant` engine with the operator CLI, so what is measured is the
 * service around the engine; then waits out the replicas' catalogue refresh (1 s) and the
 * gateways' copy (2 s).
 */
export async function bindModelToInstant(databaseUrl: string, modelId: string, root?: string): Promise<void> {
  await cli(databaseUrl, ['models', 'update', '--id', modelId, '--engine', '{"engine":"instant"}'], { root });
  await sleep(3_500);
}

/**
 * Enterprise accounts with high limits and credits, made with the operator CLI against
 * `databaseUrl` (the way an operator provisions load-test accounts). Returns one API key each.
 */
export async function provisionEnterpriseAccounts(databaseUrl: string, count: number, parallel: number, root?: string): Promise<string[]> {
  const one = async (index: number) => {
    const created = JSON.parse(
      await cli(databaseUrl, ['accounts', 'create', '--name', `bench ${index}`, '--plan', 'enterprise', '--credits', '1000000000', '--json'], { root }),
    ) as { account_id: string; api_key: { key: string } };
    await cli(databaseUrl, ['plans', 'set', '--account', created.account_id, '--plan', 'enterprise', '--rpm', '100000000', '--parallel', String(parallel), '--json'], { root });
    return created.api_key.key;
  };
  const keys: string[] = [];
  // A few at a time: each CLI run is a process of its own.
  for (let i = 0; i < count; i += 4) keys.push(...(await Promise.all(Array.from({ length: Math.min(4, count - i) }, (_, j) => one(i + j)))));
  return keys;
}
