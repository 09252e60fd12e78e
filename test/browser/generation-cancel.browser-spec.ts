import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { http } from '@gen/testing';
import { ARTIFACTS_ROOT, LAPTOP, launchChromium, screenshots } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { HoldEngine } from '../support/hold-engine';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
const SHOTS = join(ARTIFACTS_ROOT, 'generation-cancel');

/** The generation page's Cancel button, in Chromium: asked first, then the job is failed and refunded. */
describe('dashboard: cancel a running generation', () => {
  let h: StandaloneHarness;
  let browser: Browser;
  let page: Page;
  const hold = new HoldEngine('hold', 0.3);
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) throw new Error('The dashboard is not built: run "npm run test:browser".');
    rmSync(SHOTS, { recursive: true, force: true });
    h = await startStandaloneHarness(
      { DASHBOARD_DIR, SIGNUP_CREDITS: '100' },
      {
        engines: { hold },
        models: [
          { id: 'held-video-1', name: 'Held video', type: 'TEXT_TO_VIDEO', credits: 30, minimumCredits: 30, synchronous: false, minPlan: 'free', engine: 'hold', params: {} },
        ],
      },
    );
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: LAPTOP })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    hold.releaseAll();
    await browser?.close();
    await h?.close();
  });

  it('shows progress, asks, cancels, and the credits come back', async () => {
    const email = testEmail('cancel');
    await page.goto(`${h.url}/dashboard/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const accountId = (await h.running.databases.auth.query('SELECT account_id FROM users WHERE email = $1', [email]))[0].account_id as string;
    const key = await h.running.provisioning.createKey(accountId, 'api');
    const submitted = await http(h.url, 'POST', '/api/v1/generate', { key: key.key, body: { model: 'held-video-1', prompt: 'a long take', type: 'TEXT_TO_VIDEO' } });
    expect(submitted.status).toBe(202);
    await hold.startedJob(submitted.body.id);

    await page.goto(`${h.url}/dashboard/generations/${submitted.body.id}`);
    await page.getByText('30 %').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Cancel generation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this generation?' });
    await dialog.waitFor();
    await screenshots(page, '01-cancel-asked', { dir: SHOTS });
    await dialog.getByRole('button', { name: 'Cancel generation' }).click();
    await page.locator('.badge', { hasText: 'Failed' }).first().waitFor();
    await page.getByText('Canceled at your request. Your credits were refunded.').first().waitFor();
    await page.getByText(/canceled/).first().waitFor();
    expect(await page.getByRole('button', { name: 'Cancel generation' }).count()).toBe(0);
    await screenshots(page, '02-canceled', { dir: SHOTS });

    expect(hold.aborted).toContain(submitted.body.id);
    const credits = await http(h.url, 'GET', '/api/v1/credits', { key: key.key });
    expect(credits.body).toMatchObject({ available: 100, held: 0 });
    expect(pageErrors).toEqual([]);
  });
});
