import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { dropDatabase, freePort } from '@gen/persistence';
import { http } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { CliResult, cliResult } from '../support/cli';

const ROOT = join(__dirname, '..', '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The block of README.md after a marker comment (`<!-- readme-test: <name> ...`), as written. */
function readmeBlock(name: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const marker = readme.indexOf(`<!-- readme-test: ${name}`);
  if (marker < 0) throw new Error(`README.md has no block marked "readme-test: ${name}"`);
  const block = /```sh\n([\s\S]*?)\n```/.exec(readme.slice(marker));
  if (!block) throw new Error(`no sh block after the "readme-test: ${name}" marker`);
  return block[1];
}

/**
 * README.md's distributed instructions, run as written by bash from the checkout: the four services
 * come up, a generation completes, its output_url answers, and its signed webhook reaches a local
 * receiver. Only the values an operator is told to change are replaced (the database URL, the NATS
 * URL, the outputs folder, the ports), with this run's own; each must be in the block as the test
 * knows it, so a README that changes them fails here instead of drifting.
 */
describe('README: the distributed instructions, run as written', () => {
  const token = randomBytes(5).toString('hex');
  const admin = process.env.TEST_PG_ADMIN_URL as string;
  const databaseName = `gen_readme_${token}`;
  const databaseUrl = (() => {
    const url = new URL(admin);
    url.pathname = `/${databaseName}`;
    return url.toString();
  })();
  const natsUrl = process.env.DIST_NATS_URL as string;
  const storageDir = mkdtempSync(join(tmpdir(), 'gen-readme-'));
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // Not in the block: this run's own subjects and stream on the shared NATS server.
    NATS_SUBJECT_PREFIX: `t${token}.`,
    NATS_STREAM: `GEN_README_${token.toUpperCase()}`,
    // Set beforehand, so the block keeps it (its `${VAR:-...}`) and the CLI below can use it too.
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };
  let shell: ChildProcess | undefined;
  let output = '';
  let gateway = '';
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const ports = { gateway: await freePort(), billing: await freePort(), generation: await freePort(), webhooks: await freePort() };
    gateway = `http://127.0.0.1:${ports.gateway}`;
    const replacements: Array<[string, string]> = [
      ['postgres://postgres@127.0.0.1:5432/gen', databaseUrl],
      ['nats://127.0.0.1:4222', natsUrl],
      ['/tmp/gen-outputs', storageDir],
      ['http://localhost:3000', gateway],
      ['PORT=3000 ', `PORT=${ports.gateway} `],
      ['HTTP_PORT=8081 ', `HTTP_PORT=${ports.billing} `],
      ['HTTP_PORT=8082 ', `HTTP_PORT=${ports.generation} `],
      ['HTTP_PORT=8083 ', `HTTP_PORT=${ports.webhooks} `],
    ];
    let script = readmeBlock('distributed');
    for (const [written, ours] of replacements) {
      expect({ inTheReadme: written, found: script.includes(written) }).toEqual({ inTheReadme: written, found: true });
      script = script.split(written).join(ours);
    }
    // Its own process group, so that every process the block starts can be stopped together.
    shell = spawn('bash', ['-e', '-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    shell.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    shell.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    for (let i = 0; i < 600; i++) {
      if (shell.exitCode !== null) throw new Error(`the README's commands stopped (exit ${shell.exitCode}):\n${output.slice(-4000)}`);
      const ready = await fetch(`${gateway}/readyz`).then((r) => r.status, () => 0);
      if (ready === 200) return;
      await sleep(100);
    }
    throw new Error(`the gateway was not ready within 60 s:\n${output.slice(-4000)}`);
  });

  afterAll(async () => {
    if (shell?.pid && shell.exitCode === null) {
      process.kill(-shell.pid, 'SIGTERM');
      for (let i = 0; i < 150 && shell.exitCode === null; i++) await sleep(100);
      if (shell.exitCode === null) process.kill(-shell.pid, 'SIGKILL');
    }
    // The services in the background: gone with the group (SIGKILL any left after their drain).
    await sleep(1_000);
    if (shell?.pid) {
      try {
        process.kill(-shell.pid, 'SIGKILL');
      } catch {
        // the group is empty: every process exited
      }
    }
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    const nc = await connect({ servers: natsUrl });
    await (await nc.jetstreamManager()).streams.delete(env.NATS_STREAM).catch(() => undefined);
    await nc.close();
    await dropDatabase(admin, databaseName);
    rmSync(storageDir, { recursive: true, force: true });
  });

  /** `npm run cli -- ...` as the README's next steps run it, in a shell with the same variables. */
  function cli(...args: string[]): CliResult {
    const result = spawnSync('npm', ['run', '--silent', 'cli', '--', ...args, '--json'], {
      cwd: ROOT,
      env: { ...env, DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_LIST: '127.0.0.1/32' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return cliResult(result);
  }

  it('created the database (migrate --create-database) and started the four services', () => {
    expect(output).toContain('Created the database of');
    expect(output).not.toMatch(/does not exist|failed to start/);
  });

  it('generates with a CLI-made key: the output_url answers, and the signed webhook reaches a local receiver', async () => {
    const created = cli('accounts', 'create', '--name', 'Acme', '--plan', 'pro', '--credits', '1000');
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: expect.stringContaining('Database:') });
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const webhook = cli('keys', 'set-webhook-url', '--account', created.json.account_id, '--key', created.json.api_key.id, '--url', hook);
    expect(webhook.code).toBe(0);
    expect(webhook.json).toMatchObject({ key: { webhook_url: hook, has_webhook_secret: true }, webhook_secret: expect.stringMatching(/^whsec_/) });

    const res = await http(gateway, 'POST', '/api/v1/generate', {
      key: created.json.api_key.key,
      body: { model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', output_url: expect.stringMatching(new RegExp(`^${gateway}/cdn/`)) });
    const output = await fetch(res.body.output_url as string);
    expect({ status: output.status, type: output.headers.get('content-type') }).toEqual({ status: 200, type: 'image/png' });

    for (let i = 0; i < 100 && received.length === 0; i++) await sleep(100);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0].body)).toMatchObject({ event: 'generation.completed', id: res.body.id, output_url: res.body.output_url });
    expect(() => verify(received[0].body, received[0].headers, webhook.json.webhook_secret as string)).not.toThrow();
  });

  it("keys secret needs the gateway's WEBHOOK_SECRET_ENCRYPTION_KEY, and says so", () => {
    const created = cli('accounts', 'create', '--name', 'Keyless', '--plan', 'free');
    const result = spawnSync(
      process.execPath,
      [join(ROOT, 'tools', 'cli.js'), 'keys', 'secret', '--account', created.json.account_id, '--key', created.json.api_key.id],
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl }, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('WEBHOOK_SECRET_ENCRYPTION_KEY is required');
  });
});
