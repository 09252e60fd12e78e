import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@gen/persistence';
import { createTestDatabase, TestDatabase } from '@gen/testing';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'apps', 'standalone', 'src', 'main.js');

/** Runs `npm start`'s process until it printed its banner; through a pseudo-terminal (util-linux `script`) or a pipe. */
async function startUntilBanner(database: TestDatabase, terminal: boolean): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gen-logs-'));
  const port = await freePort();
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, DATABASE_URL: database.url, PORT: String(port), LOG_LEVEL: 'info' };
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)}`;
  const child = terminal
    ? spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (output += c));
  try {
    for (let i = 0; i < 300 && !/API key: gsk_live_/.test(output); i++) await new Promise((r) => setTimeout(r, 100));
    return output;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Logs for people at a terminal, JSON for machines (issue 15, item 9). */
describe('standalone logs: readable on a terminal, JSON through a pipe', () => {
  it('in a terminal: readable lines, and few of them before the banner', async () => {
    const database = await createTestDatabase('ttylogs');
    try {
      const output = await startUntilBanner(database, true);
      const before = output.slice(0, output.indexOf('Generation Service (standalone) is running')).split('\n').filter((l) => l.trim());
      expect(before.length).toBeGreaterThan(0);
      expect(before.length).toBeLessThanOrEqual(8);
      for (const line of before) expect(line).toMatch(/^\d\d:\d\d:\d\d (INFO |WARN |ERROR|DEBUG) /);
      expect(output).not.toContain('{"level"');
    } finally {
      await database.drop();
    }
  });

  it('through a pipe: every log line is JSON', async () => {
    const database = await createTestDatabase('pipelogs');
    try {
      const output = await startUntilBanner(database, false);
      const logLines = output.split('\n').filter((l) => /^\d\d:\d\d:\d\d /.test(l) || l.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(0);
      for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      await database.drop();
    }
  });
});
