import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BillingService } from '@gen/billing';
import { http } from '@gen/testing';
import { verify } from '@gen/webhook-signature';
import { ARTIFACTS_ROOT, launchChromium, screenshots as shoot } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
const SHOTS = join(ARTIFACTS_ROOT, 'dashboard-product');
const NEW_PASSWORD = 'an even longer passphrase';

// The few browser types the page scripts below use (this project compiles without the DOM library).
type StyleOf = (element: unknown, pseudo?: string) => { fontFamily: string };

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The customer's webhook receiver on 127.0.0.1: records raw POSTs; `/fail` answers 500. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(request.url === '/fail' ? 500 : 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The dashboard as a product (issue 16), in Chromium against standalone: Models, the Playground (an
 * image, a video, a 3D model), Usage with its chart and CSV, a test event per key, account settings,
 * the API reference link; screenshots of each at laptop and phone width in test-artifacts/dashboard-product/.
 */
describe('dashboard product pages in a browser', () => {
  let h: StandaloneHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const email = testEmail('product');
  const pageErrors: string[] = [];
  let accountId = '';
  let apiKey = '';
  let secret = '';
  let imageGenerationId = '';
  const screenshots = (p: Page, name: string, options: { fullPage?: boolean } = {}) => shoot(p, name, { ...options, dir: SHOTS });

  const waitForReceived = async (path: string, count: number): Promise<Received[]> => {
    const deadline = Date.now() + 20_000;
    while (receiver.received.filter((r) => r.path === path).length < count) {
      if (Date.now() > deadline) throw new Error(`fewer than ${count} requests at ${path}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return receiver.received.filter((r) => r.path === path);
  };

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
      throw new Error(`The dashboard is not built (${DASHBOARD_DIR}): run the browser tests with "npm run test:browser".`);
    }
    rmSync(SHOTS, { recursive: true, force: true }); // this run's screenshots only
    h = await startStandaloneHarness({ DASHBOARD_DIR, SIGNUP_CREDITS: '500' });
    receiver = await startReceiver();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.url });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (401|403|404|409|422)/.test(message.text())) pageErrors.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await h?.close();
  });

  afterEach(() => {
    // No script errors and no CSP violations on any page.
    expect(pageErrors).toEqual([]);
  });

  it('signs up and creates a key with a webhook URL (its first secret, without a warning about earlier ones)', async () => {
    await page.goto(`${h.url}/dashboard/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    accountId = (await h.running.databases.auth.query('SELECT account_id FROM users WHERE email = $1', [email]))[0].account_id;

    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByLabel('Name').fill('studio');
    await page.getByLabel('Default webhook URL (optional)').fill(`${receiver.url}/hook`);
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = await page.getByLabel('API key', { exact: true }).inputValue();
    secret = await page.getByLabel('Webhook signing secret', { exact: true }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have saved it' }).click();
  });

  it('Models: price, minimum, plan, mode and availability with the reason, from the catalogue', async () => {
    await page.getByRole('link', { name: 'Models', exact: true }).click();
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    const api = (await http(h.url, 'GET', '/api/v1/models', { key: apiKey })).body.data as Array<{
      id: string;
      name: string;
      type: string;
      credits: number;
      minimum_credits: number;
      synchronous: boolean;
      available: boolean;
      unavailable_reason: string | null;
    }>;
    for (const model of api) {
      const row = page.locator(`tr[data-model="${model.id}"]`);
      await row.getByText(model.name).waitFor();
      await row.locator('td[data-label="Price"]').getByText(`${model.credits} credit`).waitFor();
      await row.locator('td[data-label="Answer"]').getByText(model.synchronous ? 'Sync' : 'Async').waitFor();
      if (model.available) await row.getByText('Available', { exact: true }).waitFor();
      else await row.getByText(model.unavailable_reason as string).waitFor();
    }
    // On the Free plan a 3D model says which plan it needs.
    await page.locator('tr[data-model="mesh-smith-1"]').getByText(/Needs the lite plan or above; this account is on free\./).waitFor();
    await screenshots(page, '01-models-free-plan');

    // Pro, at its highest rate: the tests below make more requests in a minute than the plan's default.
    await h.running.app.get(BillingService).setPlan(accountId, 'pro', { rpm: 200 });
    await page.reload();
    await page.locator('tr[data-model="mesh-smith-1"]').getByText('Available', { exact: true }).waitFor();
    await page.getByLabel('Type').selectOption('TEXT_TO_3D');
    await expect(page.locator('tbody tr').count()).resolves.toBe(api.filter((m) => m.type === 'TEXT_TO_3D').length);
    await screenshots(page, '02-models-pro-3d-filter');
  });

  it('Playground: an image generated with the chosen key, its charge, and a curl with only the key prefix', async () => {
    await page.getByRole('link', { name: 'Playground', exact: true }).click();
    await page.getByRole('heading', { name: 'Playground' }).waitFor();
    await page.getByText('Nothing generated yet').waitFor();
    await page.getByLabel('Model').selectOption('pixel-flux-1');
    await page.getByRole('button', { name: /^Generate/ }).click();
    await page.getByText('Describe what to generate.').waitFor();
    await expect(page.getByLabel('Prompt').getAttribute('aria-invalid')).resolves.toBe('true');
    await screenshots(page, '03-playground-empty-prompt');

    await page.getByLabel('Prompt').fill('a lighthouse at dusk');
    const curl = page.getByTestId('curl');
    const text = (await curl.textContent()) ?? '';
    expect(text).toContain(`${h.url}/api/v1/generate`);
    expect(text).toContain(`Bearer ${apiKey.slice(0, 17)}<REST_OF_YOUR_KEY>`);
    expect(text).toContain(`'{"model":"pixel-flux-1","prompt":"a lighthouse at dusk","type":"TEXT_TO_IMAGE"}'`);
    await page.getByRole('button', { name: /^Generate/ }).click();
    const image = page.getByRole('img', { name: 'Output of “a lighthouse at dusk”' });
    await image.waitFor({ timeout: 30_000 });
    const price = (await http(h.url, 'GET', '/api/v1/models', { key: apiKey })).body.data.find((m: { id: string }) => m.id === 'pixel-flux-1').credits;
    await expect(page.getByTestId('credits-charged').textContent()).resolves.toBe(`${price} credits`);
    imageGenerationId = ((await page.locator('.result-facts a').getAttribute('href')) ?? '').split('/').pop() ?? '';
    expect(imageGenerationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.content()).not.toContain(apiKey);
    await page.getByRole('button', { name: 'Copy curl' }).click();
    const copied = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
    expect(copied).toBe(text);
    await screenshots(page, '04-playground-image');
  });

  it('Playground: an asynchronous video arrives by itself, and a 3D model shows in the viewer', async () => {
    await page.getByLabel('Model').selectOption('motion-lite-1');
    await page.getByLabel('Prompt').fill('waves on a shore');
    await page.getByRole('button', { name: /^Generate/ }).click();
    await page.locator('.result video').waitFor({ timeout: 30_000 });
    await page.locator('.result .badge', { hasText: 'Completed' }).waitFor();
    await screenshots(page, '05-playground-video');

    await page.getByLabel('Model').selectOption('mesh-smith-1');
    await page.getByLabel('Prompt').fill('a small stone tower');
    await page.getByRole('button', { name: /^Generate/ }).click();
    await page.locator('.result .model-preview[data-state="ready"]').waitFor({ timeout: 30_000 });
    expect(Number(await page.locator('.result .model-preview').getAttribute('data-meshes'))).toBeGreaterThan(0);
    await page.getByRole('link', { name: 'Download the 3D model (.glb)' }).waitFor();
    await screenshots(page, '06-playground-3d');
    // The webhook of each playground generation went to the key's URL, as for the API.
    const deliveries = await waitForReceived('/hook', 3);
    for (const d of deliveries) expect(verify(d.body, d.headers, secret).event).toBe('generation.completed');
  });

  it('Usage: spending per day and per model as a chart, the ledger in pages, and a CSV export', async () => {
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    // Billing captures each hold just after its generation completes.
    const captured = async (): Promise<Array<{ held_delta: number }>> =>
      h.running.databases.billing.query(`SELECT held_delta FROM ledger WHERE account_id = $1 AND kind = 'capture'`, [accountId]);
    const deadline = Date.now() + 15_000;
    while ((await captured()).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const spent = (await captured()).reduce((sum, e) => sum - e.held_delta, 0);
    await page.reload();
    await expect(page.getByTestId('spent-30-days').textContent()).resolves.toBe(String(spent));
    const chart = page.getByTestId('spending-chart');
    await chart.waitFor();
    expect(await chart.getAttribute('aria-label')).toContain(`${spent} credits spent`);
    await expect(chart.locator('rect[class^="series-"]').count()).resolves.toBe(3);
    for (const model of ['pixel-flux-1', 'motion-lite-1', 'mesh-smith-1']) await page.locator('.legend').getByText(model).waitFor();
    const ledger = page.locator('table.ledger tbody tr');
    await expect(ledger.count()).resolves.toBe(7); // three holds, three captures, the opening grant
    await expect(ledger.first().getAttribute('data-kind')).resolves.toBe('capture');
    await ledger.last().getByText('opening grant').waitFor();
    await screenshots(page, '07-usage');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^credit-ledger-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await file.path()) as string, 'utf8').split('\r\n');
    expect(csv[0]).toBe('id,created_at,kind,amount,held_change,balance_after,generation_id,model,note');
    expect(csv.filter((line) => line.length > 0)).toHaveLength(8);
  });

  it('Usage: the ledger pages with Older and Newer', async () => {
    // 25 entries a page: a few more generations make a second page.
    for (let i = 0; i < 10; i++) {
      const res = await http(h.url, 'POST', '/api/v1/generate', { key: apiKey, body: { model: 'pixel-flux-1', prompt: `page filler ${i}`, type: 'TEXT_TO_IMAGE' } });
      expect(res.status).toBe(200);
    }
    await page.reload();
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.getByRole('button', { name: '← Newer' }).waitFor();
    await page.locator('table.ledger tbody tr').last().getByText('opening grant').waitFor();
    await screenshots(page, '08-usage-older-page');
    await page.getByRole('button', { name: '← Newer' }).click();
    await page.getByRole('button', { name: 'Older →' }).waitFor();
  });

  it('Test event: sent from the key to its URL, signed, marked as a test, with its attempts shown', async () => {
    await page.goto(`${h.url}/dashboard/settings/keys`);
    const before = receiver.received.filter((r) => r.path === '/hook').length;
    await page.getByRole('button', { name: 'Send a test event for studio' }).click();
    const [got] = (await waitForReceived('/hook', before + 1)).slice(before);
    expect(got.headers['x-service-test']).toBe('true');
    const verified = verify(got.body, got.headers, secret);
    expect(JSON.parse(got.body.toString('utf8'))).toMatchObject({ event: 'generation.completed', id: expect.stringMatching(/^test_/), credits_charged: 0 });
    const item = page.locator(`.test-events .delivery[data-delivery-id="${verified.deliveryId}"]`);
    await item.locator('.badge', { hasText: 'Delivered' }).waitFor();
    await item.getByText('Delivered · HTTP 200').waitFor();
    await item.getByText('test event').waitFor();
    await screenshots(page, '09-test-event-delivered');

    // Typed URL that fails: the attempts say the status once, and the next one is scheduled.
    await page.getByLabel('Send a test event to (optional)').fill(`${receiver.url}/fail`);
    await page.getByRole('button', { name: 'Send a test event for studio' }).click();
    await waitForReceived('/fail', 2);
    const failing = page.locator('.test-events .delivery').first();
    await failing.locator('tbody tr').nth(1).waitFor();
    const result = (await failing.locator('tbody tr').first().locator('td').nth(2).textContent()) ?? '';
    expect(result).toBe('Failed · HTTP 500: the receiver did not answer with a 2xx status.');
    await failing.getByText(/attempt 2 of 3/).waitFor();
    await screenshots(page, '10-test-event-failing');
  });

  it('Account: sessions listed and ended, password changed with the current one, other sessions signed out', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 }, userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/133.0' });
    const otherPage = await other.newPage();
    await otherPage.goto(`${h.url}/dashboard/sign-in`);
    await otherPage.getByLabel('Email').fill(email);
    await otherPage.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await otherPage.getByRole('button', { name: 'Sign in' }).click();
    await otherPage.getByRole('heading', { name: 'Overview' }).waitFor();

    await page.goto(`${h.url}/dashboard/settings/account`);
    await page.getByRole('heading', { name: 'Change password' }).waitFor();
    await page.getByText('This session', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Firefox on Windows' }).waitFor();
    await screenshots(page, '11-account');

    await page.getByLabel('Current password').fill('not my password at all');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('This is not your current password.').waitFor();
    await expect(page.getByLabel('Current password').getAttribute('aria-invalid')).resolves.toBe('true');
    await screenshots(page, '12-account-wrong-password');

    await page.getByLabel('Current password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. 1 other session was signed out.').waitFor();
    // The other browser is signed out at its next request.
    await otherPage.reload();
    await otherPage.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByText('This session', { exact: true }).waitFor();
    await expect(page.locator('.session').count()).resolves.toBe(1);
    await screenshots(page, '13-account-password-changed');

    // Signed in again elsewhere, then ended from here.
    await otherPage.getByLabel('Email').fill(email);
    await otherPage.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await otherPage.getByRole('button', { name: 'Sign in' }).click();
    await otherPage.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: /^Sign out Firefox on Windows/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out this session?' });
    await dialog.waitFor();
    await screenshots(page, '14-account-end-session', { fullPage: false });
    await dialog.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('Firefox on Windows signed out.').waitFor();
    await otherPage.reload();
    await otherPage.getByRole('heading', { name: 'Sign in' }).waitFor();
    await other.close();
  });

  it('links the API reference from the header, and the reference page is there', async () => {
    const link = page.getByRole('link', { name: /API reference/ });
    expect(await link.getAttribute('href')).toBe('/api/v1/docs');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect((await fetch(`${h.url}/api/v1/docs`)).status).toBe(200);
  });

  it('shows times with seconds and durations, and keeps the Model label plain at phone width', async () => {
    await page.goto(`${h.url}/dashboard/generations/${imageGenerationId}`);
    await page.getByRole('heading', { name: /Image generation/ }).waitFor();
    const fields = (await page.locator('dl.fields').textContent()) ?? '';
    expect(fields).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    expect(fields).toMatch(/ran \d+(\.\d)? (ms|s)/);
    await page.locator('.delivery').first().getByText(/finished after/).waitFor();
    await screenshots(page, '15-generation-seconds-durations');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${h.url}/dashboard/generations`);
    const cell = page.locator('td[data-label="Model"]').first();
    await cell.waitFor();
    const fonts = await cell.evaluate((td) => {
      const style = (globalThis as unknown as { getComputedStyle: StyleOf }).getComputedStyle;
      return { label: style(td, '::before').fontFamily, value: style((td as unknown as { firstElementChild: unknown }).firstElementChild).fontFamily };
    });
    expect(fonts.label).not.toMatch(/mono/i);
    expect(fonts.value).toMatch(/mono/i);
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
