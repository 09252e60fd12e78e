import { existsSync, rmSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { BillingService } from '@gen/billing';
import { http } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { ARTIFACTS_ROOT, LAPTOP, launchChromium, screenshots } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { testModel } from '../support/factories';
import { HoldEngine } from '../support/hold-engine';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
const SHOTS = join(ARTIFACTS_ROOT, 'batches');

/** A JSONL batch file: one generate request a line (`custom_id` and `body`), and any raw lines given. */
function jsonl(model: string, ids: string[], raw: string[] = []): string {
  return [...ids.map((id) => JSON.stringify({ custom_id: id, body: { model, prompt: `a product shot ${id}`, type: 'TEXT_TO_IMAGE' } })), ...raw].join('\n') + '\n';
}

/**
 * The Batches page and a batch's page, in Chromium against standalone: the table with its progress
 * bars, cursor pages, a finished batch's counts and its results and errors files, and Cancel on a
 * batch in progress. Screenshots at laptop and phone width in test-artifacts/batches/.
 */
describe('dashboard: batches', () => {
  let h: StandaloneHarness;
  let browser: Browser;
  let page: Page;
  let apiKey = '';
  let email = '';
  const secret = `whsec_batches${Math.random().toString(36).slice(2)}`;
  /** The customer's receiver of the batch's `batch.completed`. */
  const received: Array<{ headers: IncomingHttpHeaders; raw: Buffer }> = [];
  let receiver: Server;
  let receiverUrl = '';
  const hold = new HoldEngine('hold');
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) throw new Error('The dashboard is not built: run "npm run test:browser".');
    rmSync(SHOTS, { recursive: true, force: true });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/batches`;
    h = await startStandaloneHarness(
      { DASHBOARD_DIR, SIGNUP_CREDITS: '1000' },
      {
        engines: {
          hold,
          instant: { name: 'instant', generate: async () => [{ data: Buffer.from('not really a png'), contentType: 'image/png', extension: 'png' }] },
        },
        models: [testModel({ id: 'instant-1', engine: 'instant', credits: 2 }), testModel({ id: 'held-1', engine: 'hold', credits: 3, synchronous: false })],
      },
    );
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: LAPTOP })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));

    email = testEmail('batches');
    await page.goto(`${h.url}/dashboard/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const accountId = (await h.running.databases.auth.query('SELECT account_id FROM users WHERE email = $1', [email]))[0].account_id as string;
    const key = await h.running.provisioning.createKey(accountId, 'batches');
    apiKey = key.key;
    // A signing secret, as the dashboard would generate it: the batch's webhook is signed with it.
    await h.running.databases.auth.query('UPDATE api_keys SET webhook_secret = $2 WHERE id = $1', [key.id, secret]);
    // Room for the many batches of the paging case; one parallel slot, so that a batch's lines wait their turn.
    await h.running.app.get(BillingService).setPlan(accountId, 'enterprise', { rpm: 1000, parallel: 1 });
  });
  afterAll(async () => {
    hold.releaseAll();
    await browser?.close();
    await h?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  async function createBatch(file: string, query = ''): Promise<{ id: string; status: string }> {
    const res = await http(h.url, 'POST', `/api/v1/batches${query}`, { key: apiKey, rawBody: file, headers: { 'content-type': 'application/jsonl' } });
    expect(res.status).toBe(201);
    return res.body as { id: string; status: string };
  }

  async function batchStatus(id: string): Promise<string> {
    return ((await http(h.url, 'GET', `/api/v1/batches/${id}`, { key: apiKey })).body as { status: string }).status;
  }

  async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('lists batches with their progress; a finished batch shows its counts and downloads its results and errors', async () => {
    const done = await createBatch(jsonl('instant-1', ['a', 'b', 'c'], ['{"custom_id": "broken"}']), `?invalid_lines=skip&webhook_url=${encodeURIComponent(receiverUrl)}`);
    await until(async () => (await batchStatus(done.id)) === 'completed');
    // Its end is told once, signed with the creating key's secret, with the batch as the API shows it.
    await until(async () => received.length > 0);
    expect(verify(received[0]!.raw, received[0]!.headers, secret)).toMatchObject({ event: 'batch.completed' });
    const shown = (await http(h.url, 'GET', `/api/v1/batches/${done.id}`, { key: apiKey })).body as object;
    expect(JSON.parse(received[0]!.raw.toString('utf8'))).toMatchObject({ event: 'batch.completed', batch: shown });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Batches' }).click();
    await page.getByRole('heading', { name: 'Batches' }).waitFor();
    const row = page.locator(`tr[data-batch="${done.id}"]`);
    await row.waitFor();
    await row.locator('.badge', { hasText: 'Completed' }).waitFor();
    const bar = row.getByRole('progressbar', { name: 'Lines finished' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('4');
    expect(await bar.getAttribute('aria-valuemax')).toBe('4');
    expect(await row.textContent()).toContain('4 / 4 · 3 completed · 1 invalid');
    expect(await row.locator('td[data-label="Credits charged"]').textContent()).toBe('6');
    await screenshots(page, '01-batches', { dir: SHOTS });

    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Batch' }).waitFor();
    await page.locator('.badge', { hasText: 'Completed' }).waitFor();
    expect(await page.locator('tr[data-count="completed"] td').textContent()).toBe('3');
    expect(await page.locator('tr[data-count="invalid"] td').textContent()).toBe('1');
    expect(await page.getByRole('button', { name: 'Cancel batch' }).count()).toBe(0);
    await screenshots(page, '02-batch-completed', { dir: SHOTS });

    // The files download with the session's cookie: JSONL, one BatchLineResult a line.
    const results = page.getByRole('link', { name: 'Download results' });
    expect(await results.getAttribute('href')).toBe(`/dashboard/api/batches/${done.id}/results`);
    const resultsFile = await page.request.get(`${h.url}${await results.getAttribute('href')}`);
    expect(resultsFile.status()).toBe(200);
    expect(resultsFile.headers()['content-type']).toContain('application/jsonl');
    const lines = (await resultsFile.text()).trim().split('\n').map((l) => JSON.parse(l) as { line: number; custom_id: string; outcome: string });
    expect(lines.map((l) => [l.line, l.custom_id, l.outcome])).toEqual([
      [1, 'a', 'completed'],
      [2, 'b', 'completed'],
      [3, 'c', 'completed'],
    ]);
    const errors = await page.request.get(`${h.url}${await page.getByRole('link', { name: 'Download errors' }).getAttribute('href')}`);
    expect(errors.status()).toBe(200);
    const errorLines = (await errors.text()).trim().split('\n').map((l) => JSON.parse(l) as { line: number; outcome: string; error: { code: string } });
    expect(errorLines).toEqual([expect.objectContaining({ line: 4, outcome: 'invalid', error: expect.objectContaining({ code: 'validation_error' }) })]);
    expect(pageErrors).toEqual([]);
  });

  it('cancels a batch in progress after asking: lines not started are canceled, the running one finishes', async () => {
    const running = await createBatch(jsonl('held-1', ['x1', 'x2', 'x3', 'x4']));
    await until(async () => hold.started.length > 0);
    // A viewer sees the batch run, with no Cancel button.
    const setRole = (role: string) =>
      h.running.databases.auth.query('UPDATE account_members SET role = $2 WHERE user_id = (SELECT id FROM users WHERE email = $1)', [email, role]);
    await setRole('viewer');
    await page.goto(`${h.url}/dashboard/batches/${running.id}`);
    await page.locator('.badge', { hasText: 'In progress' }).waitFor();
    await page.getByRole('progressbar', { name: 'Lines finished' }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel batch' }).count()).toBe(0);
    await setRole('owner');
    await page.reload();
    await page.locator('.badge', { hasText: 'In progress' }).waitFor();
    await page.getByRole('button', { name: 'Cancel batch' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this batch?' });
    await dialog.waitFor();
    await screenshots(page, '03-cancel-asked', { dir: SHOTS });
    await dialog.getByRole('button', { name: 'Cancel batch' }).click();
    await page.locator('.badge', { hasText: /Canceling|Canceled/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel batch' }).count()).toBe(0);

    // The running line finishes; the page, polling, shows the batch canceled.
    hold.releaseAll();
    await page.locator('.badge', { hasText: 'Canceled' }).waitFor({ timeout: 20_000 });
    const canceled = Number(await page.locator('tr[data-count="canceled"] td').textContent());
    const completed = Number(await page.locator('tr[data-count="completed"] td').textContent());
    expect(canceled).toBeGreaterThanOrEqual(1);
    expect(canceled + completed).toBe(4);
    await screenshots(page, '04-batch-canceled', { dir: SHOTS });
    expect(pageErrors).toEqual([]);
  });

  it('pages through more batches than a page holds, newest first', async () => {
    for (let i = 0; i < 20; i++) await createBatch(jsonl('instant-1', [`p${i}`]));
    await page.goto(`${h.url}/dashboard/batches`);
    await page.locator('tr[data-batch]').first().waitFor();
    expect(await page.locator('tr[data-batch]').count()).toBe(20);
    const firstPage = await page.locator('tr[data-batch]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-batch')));
    await page.getByRole('button', { name: 'Older →' }).click();
    const firstRow = () => page.locator('tr[data-batch]').first().getAttribute('data-batch');
    await until(async () => (await firstRow()) !== firstPage[0]);
    const secondPage = await page.locator('tr[data-batch]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-batch')));
    expect(secondPage).toHaveLength(2);
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);
    await page.getByRole('button', { name: '← Newer' }).click();
    await until(async () => (await firstRow()) === firstPage[0]);
    expect(pageErrors).toEqual([]);
  });
});
