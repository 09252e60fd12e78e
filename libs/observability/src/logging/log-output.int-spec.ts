import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');
const LOGGER = join(__dirname, 'logger.ts');

/**
 * A child process that logs through a service's loggers to its real stdout (a pipe: the buffered,
 * asynchronous output), with a flush delay so long that only the exit and signal hooks can write
 * the lines in time. TypeScript is compiled on the fly (no build needed).
 */
const CHILD = `
const ts = require('typescript');
const fs = require('fs');
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
  module._compile(ts.transpileModule(source, { compilerOptions: options, fileName: filename }).outputText, filename);
};
const { ServiceLogs } = require(${JSON.stringify(LOGGER)});
const logs = new ServiceLogs({ service: 'child', level: 'info', output: { flushDelayMs: 600000 } });
const scenario = process.argv[1];
const ready = () => process.stderr.write('ready\\n');
logs.requestLines.info({ requestId: 'r-1', status: 200 }, 'request completed');
logs.app.info({ scenario }, 'last words');
switch (scenario) {
  case 'exit':
    process.exit(3);
  case 'throw':
    setImmediate(() => { throw new Error('boom'); });
    break;
  case 'reject':
    Promise.reject(new Error('rejected'));
    break;
  case 'end':
    break;
  case 'sigterm':
    setInterval(() => undefined, 1000);
    ready();
    break;
  case 'sigterm-handled':
    process.on('SIGTERM', () => {
      logs.app.info('draining');
      setTimeout(() => process.exit(0), 50);
    });
    setInterval(() => undefined, 1000);
    ready();
    break;
  case 'fatal-then-killed':
    logs.app.fatal({ err: new Error('database gone') }, 'cannot go on');
    setInterval(() => undefined, 1000);
    ready();
    break;
  case 'error':
    logs.app.error({ status: 500 }, 'handler failed');
    setInterval(() => undefined, 1000);
    break;
}
`;

interface Ended {
  lines: Array<Record<string, unknown>>;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Runs a scenario; `signal` is sent once the child says it is ready on stderr (or, with `when`,
 * once its stdout passes that test).
 */
function run(scenario: string, signal?: NodeJS.Signals, when?: (stdout: string) => boolean): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD, scenario], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const maybeSignal = () => {
      if (signal && (when ? when(stdout) : stderr.includes('ready\n'))) {
        child.kill(signal);
        signal = undefined;
      }
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      maybeSignal();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      maybeSignal();
    });
    child.on('error', reject);
    // A scenario that never gets its signal must not outlive the test.
    setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
    child.on('close', (code, exitSignal) => {
      const lines = stdout
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ lines, stderr, code, signal: exitSignal });
    });
  });
}

const messages = (ended: Ended) => ended.lines.map((line) => line.msg);

describe('buffered JSON logs on stdout are not lost when the process ends', () => {
  jest.setTimeout(60_000);

  it('process.exit(): the request line and the last line are written, the exit code kept', async () => {
    const ended = await run('exit');
    expect(messages(ended)).toEqual(['request completed', 'last words']);
    expect(ended.lines[1]).toMatchObject({ level: 'info', service: 'child', scenario: 'exit' });
    expect(ended.code).toBe(3);
  });

  it('an uncaught exception: the last line is written before the process dies', async () => {
    const ended = await run('throw');
    expect(messages(ended)).toEqual(['request completed', 'last words']);
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain('boom');
  });

  it('an unhandled rejection: the last line is written before the process dies', async () => {
    const ended = await run('reject');
    expect(messages(ended)).toEqual(['request completed', 'last words']);
    expect(ended.code).toBe(1);
  });

  it('the event loop running empty: the last line is written', async () => {
    const ended = await run('end');
    expect(messages(ended)).toEqual(['request completed', 'last words']);
    expect(ended.code).toBe(0);
  });

  it('SIGTERM with no handler of its own: the lines are written and the process still dies of SIGTERM', async () => {
    const ended = await run('sigterm', 'SIGTERM');
    expect(messages(ended)).toEqual(['request completed', 'last words']);
    expect(ended.signal).toBe('SIGTERM');
  });

  it("SIGTERM with the application's drain: the lines are written and the drain runs to its own exit", async () => {
    const ended = await run('sigterm-handled', 'SIGTERM');
    expect(messages(ended)).toEqual(['request completed', 'last words', 'draining']);
    expect(ended.code).toBe(0);
  });

  it('a fatal line is written before the call returns: even SIGKILL right after it loses nothing', async () => {
    const ended = await run('fatal-then-killed', 'SIGKILL');
    expect(messages(ended)).toEqual(['request completed', 'last words', 'cannot go on']);
    expect(ended.lines[2]).toMatchObject({ level: 'fatal', err: { message: 'database gone' } });
    expect(ended.signal).toBe('SIGKILL');
  });

  it('an error line does not wait for the batch: it comes out, with the lines before it, while the process runs', async () => {
    const ended = await run('error', 'SIGKILL', (stdout) => stdout.includes('"status":500'));
    expect(messages(ended)).toEqual(['request completed', 'last words', 'handler failed']);
    expect(ended.lines[2]).toMatchObject({ level: 'error', status: 500 });
  });
});
