import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { CliResult, cliResult } from '../support/cli';
import { DashboardClient } from '../support/dashboard-client';
import { StandaloneProcess, startStandaloneProcess } from '../support/standalone-process';

const ROOT = join(__dirname, '..', '..');
const LAUNCHER = join(ROOT, 'tools', 'cli.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `npm run cli -- <args>` (the launcher it runs), in `cwd`, with only the given environment. */
function cli(options: { cwd?: string; env?: Record<string, string> }, ...args: string[]): CliResult {
  const result = spawnSync(process.execPath, [LAUNCHER, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return cliResult(result);
}

/**
 * A newcomer's first run on standalone data (the embedded PostgreSQL, as `npm start` and `npm run cli`
 * use it): the CLI says which data it uses and refuses to invent an empty one, refuses what is not
 * an id, explains fixed limits, and gives CLI-made and demo keys webhooks; the demo account signs
 * in to the dashboard with what the first start printed.
 */
describe('first run: the operator CLI and the demo account on standalone data', () => {
  let parent: string;
  let cliData: string;
  let serverData: string;
  let service: StandaloneProcess | undefined;

  beforeAll(() => {
    // Reachable by the user postgres when this runs as root (mkdtemp makes mode 700).
    parent = mkdtempSync(join(tmpdir(), 'gen-first-run-'));
    chmodSync(parent, 0o755);
    cliData = join(parent, 'cli-data');
    serverData = join(parent, 'server-data');
  });
  afterAll(async () => {
    service?.kill();
    // The killed server's embedded PostgreSQL is stopped by the next start on its folder: do that, briefly.
    if (service) cli({ env: { DATA_DIR: serverData } }, 'accounts', 'list');
    await sleep(100);
    rmSync(parent, { recursive: true, force: true });
  });

  it('runs from the built tree without compiling anything (once the build is current)', () => {
    cli({}, '--help'); // compiles first only if a source is newer than this run's build
    const help = cli({}, '--help');
    expect(help.code).toBe(0);
    expect(help.stderr).not.toMatch(/compiling/i);
    for (const command of ['keys secret', 'keys set-webhook-url', 'keys list', 'accounts create']) expect(help.stdout).toContain(command);
  });

  it('refuses to read data that does not exist, says which folder it looked at, and creates nothing', () => {
    const withoutDataDir = cli({ cwd: parent }, 'accounts', 'list');
    expect(withoutDataDir.code).toBe(1);
    expect(withoutDataDir.stderr).toContain(`No standalone data in ${join(parent, '.data')} (DATA_DIR is not set: the default .data)`);
    expect(withoutDataDir.stdout).not.toContain('(no accounts)');
    expect(existsSync(join(parent, '.data'))).toBe(false);

    const keys = cli({ env: { DATA_DIR: cliData } }, 'keys', 'list', '--account', '2ceb6409-d7cd-4eba-af2e-3b855a1d1387');
    expect(keys.code).toBe(1);
    expect(keys.stderr).toContain(`No standalone data in ${cliData} (DATA_DIR=${cliData})`);
    expect(existsSync(cliData)).toBe(false);
  });

  it('creates the data folder for accounts create, saying where; then reads it, naming it', () => {
    const created = cli({ env: { DATA_DIR: cliData } }, 'accounts', 'create', '--name', 'First Co', '--plan', 'pro', '--credits', '100', '--json');
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`Standalone data: creating a new data folder in ${cliData}`);
    expect(created.json).toMatchObject({ account_id: expect.any(String), api_key: { key: expect.stringMatching(/^gsk_live_/) } });

    const listed = cli({ env: { DATA_DIR: cliData } }, 'accounts', 'list', '--json');
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain(`Standalone data: ${cliData} (DATA_DIR=${cliData})`);
    expect(listed.json).toEqual([
      { id: created.json.account_id, name: 'First Co', created_at: expect.any(String), plan: 'pro', available: 100, held: 0, limits: { requests_per_minute: 60, parallel_tasks: 3 } },
    ]);
  });

  it('refuses what is not an id with exit 1 and a plain message, and says which plans take other limits', () => {
    for (const [args, what] of [
      [['keys', 'list', '--account', 'nope'], 'No account "nope": account ids are UUIDs'],
      [['keys', 'revoke', '--account', '2ceb6409-d7cd-4eba-af2e-3b855a1d1387', '--key', 'k1'], 'No key "k1": key ids are UUIDs'],
      [['jobs', 'inspect', '--job', '42'], 'No job "42": job ids are UUIDs'],
    ] as const) {
      const refused = cli({ env: { DATA_DIR: cliData } }, ...args);
      expect({ args, code: refused.code }).toEqual({ args, code: 1 });
      expect(refused.stderr).toContain(what);
      expect(refused.stderr).not.toMatch(/invalid input syntax|uuid:/);
    }
    const unknown = cli({ env: { DATA_DIR: cliData } }, 'keys', 'list', '--account', '2ceb6409-d7cd-4eba-af2e-3b855a1d1387');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No such account.');

    const account = cli({ env: { DATA_DIR: cliData } }, 'accounts', 'list', '--json').json[0].id as string;
    const lite = cli({ env: { DATA_DIR: cliData } }, 'plans', 'set', '--account', account, '--plan', 'lite', '--rpm', '500');
    expect(lite.code).toBe(2);
    expect(lite.stderr).toContain(
      'The lite plan has fixed limits (30 requests per minute, 2 parallel tasks); only the pro and enterprise plans take other limits.',
    );
    expect(lite.stderr).not.toContain('between 30 and 30');
  });

  it('accounts create --email gives a dashboard sign-in with a password printed once', async () => {
    const created = cli({ env: { DATA_DIR: cliData } }, 'accounts', 'create', '--name', 'Signed Co', '--email', 'ops@signed.example', '--json');
    expect(created.code).toBe(0);
    expect(created.json.dashboard).toEqual({ email: 'ops@signed.example', password: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/) });
    const again = cli({ env: { DATA_DIR: cliData } }, 'accounts', 'create', '--name', 'Twice', '--email', 'OPS@signed.example');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already has a dashboard account');
  });

  describe('with the server running on its first start', () => {
    let signIn: { email: string; password: string };
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
      service = await startStandaloneProcess({ DATA_DIR: serverData, ENGINE_LATENCY_SCALE: '0' });
      for (let i = 0; i < 50 && !/password \S+/.test(service.output()); i++) await sleep(100);
      const match = /Dashboard sign-in: \S+\/dashboard\/sign-in {2}email (\S+) {2}password (\S+)/.exec(service.output());
      if (!match) throw new Error(`no sign-in in the first start's output:\n${service.output().slice(0, 3000)}`);
      signIn = { email: match[1], password: match[2] };
    });
    afterAll(async () => {
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    });

    it('printed a sign-in the demo account opens the dashboard with', async () => {
      const dashboard = new DashboardClient((service as StandaloneProcess).url);
      const res = await dashboard.signIn(signIn.email, signIn.password);
      expect(res.status).toBe(200);
      const keys = await dashboard.request('GET', '/keys');
      expect(keys.body.data).toEqual([expect.objectContaining({ name: 'demo key', status: 'active' })]);
    });

    it("gives the demo key a webhook from the CLI: its URL, a secret printed once, renewed; each delivery verifies with the current one", async () => {
      const { url, demoKey } = service as StandaloneProcess;
      const env = { DATA_DIR: serverData };
      const accounts = cli({ env }, 'accounts', 'list', '--json');
      expect(accounts.stderr).toContain('through the running server');
      const account = accounts.json[0].id as string;
      const key = cli({ env }, 'keys', 'list', '--account', account, '--json').json[0];
      expect(key).toMatchObject({ name: 'demo key', webhook_url: null, has_webhook_secret: false });

      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const set = cli({ env }, 'keys', 'set-webhook-url', '--account', account, '--key', key.id, '--url', hook, '--json');
      expect(set.code).toBe(0);
      expect(set.json).toMatchObject({ key: { webhook_url: hook, has_webhook_secret: true }, webhook_secret: expect.stringMatching(/^whsec_/) });
      const refused = cli({ env }, 'keys', 'set-webhook-url', '--account', account, '--key', key.id, '--url', 'https://user:pw@example.com/hook');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('webhook_url:');

      const generate = async () => {
        const before = received.length;
        const res = await http(url, 'POST', '/api/v1/generate', { key: demoKey, body: { model: 'pixel-flux-1', prompt: 'a hooked fox', type: 'TEXT_TO_IMAGE' } });
        expect(res.status).toBe(200);
        for (let i = 0; i < 100 && received.length === before; i++) await sleep(100);
        return received[before];
      };
      const first = await generate();
      expect(() => verify(first.body, first.headers, set.json.webhook_secret as string)).not.toThrow();

      const renewed = cli({ env }, 'keys', 'secret', '--account', account, '--key', key.id);
      expect(renewed.code).toBe(0);
      const secret = /^(whsec_\S+)$/m.exec(renewed.stdout)?.[1] as string;
      expect(secret).not.toBe(set.json.webhook_secret);
      const second = await generate();
      expect(() => verify(second.body, second.headers, secret)).not.toThrow();
      expect(() => verify(second.body, second.headers, set.json.webhook_secret as string)).toThrow();
    });

    it('said the built-in models are demos and printed the one command that serves real models; the demos are labelled so', async () => {
      const { url, demoKey } = service as StandaloneProcess;
      const output = (service as StandaloneProcess).output();
      expect(output).toContain('The models listed now are DEMOS, not AI models');
      expect(output).toContain('\n  npm run cli -- models sync --file catalogues/replicate.json\n');
      expect(output).toContain('\n  REPLICATE_API_TOKEN=<your token> npm start\n');
      const models = (await http(url, 'GET', '/api/v1/models', { key: demoKey })).body.data as Array<{ name: string; provider: string; description: string }>;
      expect(models.length).toBeGreaterThan(0);
      for (const model of models) {
        expect(model.provider).toBe('demo');
        expect(model.name).toMatch(/^Demo: .+\(not an AI model\)$/);
        expect(model.description).toMatch(/not an AI model/);
      }
    });

    // Last: it replaces the demo catalogue the tests above use.
    it('runs that command as printed: the Replicate models are served, unavailable until the token is set; the demos are disabled', async () => {
      const { url, demoKey } = service as StandaloneProcess;
      const synced = cli({ env: { DATA_DIR: serverData } }, 'models', 'sync', '--file', 'catalogues/replicate.json');
      expect(synced.code).toBe(0);
      const ids = (JSON.parse(readFileSync(join(ROOT, 'catalogues', 'replicate.json'), 'utf8')) as { models: Array<{ id: string }> }).models.map((m) => m.id);
      expect(synced.stdout).toContain(`added ${ids.length} (`);
      expect(synced.stdout).toContain('disabled 6 (');
      let models: Array<{ id: string; provider: string; available: boolean; unavailable_reason: string | null }> = [];
      for (let i = 0; i < 100 && !ids.every((id) => models.some((m) => m.id === id)); i++) {
        await sleep(100);
        models = (await http(url, 'GET', '/api/v1/models', { key: demoKey })).body.data;
      }
      for (const id of ids) {
        expect(models.find((m) => m.id === id)).toMatchObject({
          provider: 'replicate',
          available: false,
          unavailable_reason: 'This model is temporarily unavailable: its provider credential is not configured on this server.',
        });
      }
      expect(models.find((m) => m.id === 'pixel-flux-1')).toMatchObject({ available: false, unavailable_reason: 'The operator has disabled this model.' });
    });
  });
});
