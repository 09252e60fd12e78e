import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@gen/persistence';

const ROOT = join(__dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface StandaloneProcess {
  url: string;
  child: ChildProcess;
  /** The demo account's API key, from the start-up banner. */
  demoKey: string;
  output(): string;
  /** SIGKILL if still running. */
  kill(): void;
}

/** `npm start`'s process (built standalone) on a free port; resolves once it printed the demo key. */
export async function startStandaloneProcess(env: Record<string, string>): Promise<StandaloneProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', 'standalone', 'src', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), PUBLIC_BASE_URL: url, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let demoKey: string | undefined;
  for (let i = 0; i < 300 && !demoKey && child.exitCode === null; i++) {
    demoKey = /API key: (gsk_live_[A-Za-z0-9]+)/.exec(output)?.[1];
    if (!demoKey) await sleep(100);
  }
  if (!demoKey) {
    child.kill('SIGKILL');
    throw new Error(`standalone did not start:\n${output.slice(-3000)}`);
  }
  return {
    url,
    child,
    demoKey,
    output: () => output,
    kill: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
