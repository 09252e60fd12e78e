import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS_ROOT, launchChromium, screenshots as shoot } from '../support/browser';
import { runCli } from '../support/cli';
import { testEmail } from '../support/dashboard-client';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';
import { StripeStandIn } from '../support/stripe-stand-in';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
const SHOTS = join(ARTIFACTS_ROOT, 'dashboard-billing');

/**
 * The Billing page in Chromium against standalone and the Stripe stand-in: the owner sees the balance
 * and packs, buys one through the stand-in's hosted Checkout page (which delivers the signed event to
 * the gateway and sends the browser back), sees the credits and the receipt, sets an automatic top-up,
 * opens the customer portal and comes back. Screenshots in test-artifacts/dashboard-billing/.
 */
describe('the Billing page in a browser', () => {
  let h: StandaloneHarness;
  let stripe: StripeStandIn;
  let smtp: SmtpSink;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const screenshots = (p: Page, name: string) => shoot(p, name, { dir: SHOTS });

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
      throw new Error(`The dashboard is not built (${DASHBOARD_DIR}): run the browser tests with "npm run test:browser".`);
    }
    rmSync(SHOTS, { recursive: true, force: true });
    stripe = await StripeStandIn.start();
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({ ...stripe.env(), DASHBOARD_DIR, SMTP_URL: smtp.url });
    stripe.hostedWebhook = `${h.url}/billing/stripe/webhook`;
    expect(runCli(h.database.url, 'packs', 'set', '--id', 'starter', '--name', 'Starter', '--credits', '500', '--price', '500').code).toBe(0);
    expect(runCli(h.database.url, 'packs', 'set', '--id', 'bulk', '--name', 'Bulk', '--credits', '5000', '--price', '4000').code).toBe(0);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (401|403|404|409|422)/.test(message.text())) pageErrors.push(message.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await stripe?.close();
    await smtp?.close();
  });
  afterEach(() => expect(pageErrors).toEqual([]));

  it('buys a pack through Checkout, shows the credits and the receipt, sets a top-up, opens the portal', async () => {
    const created = await h.running.provisioning.createAccountWithSignIn('Billing browser', testEmail('billing'), 'pro', 100);
    if (!created) throw new Error('account not created');
    await page.goto(`${h.url}/dashboard/billing`);
    await page.getByLabel('Email').fill(created.email);
    await page.getByLabel('Password', { exact: true }).fill(created.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    await page.getByText('$5.00').first().waitFor();
    expect(await page.locator('.stat-value').textContent()).toBe('100');
    await page.getByText('No purchases yet.').waitFor();
    await page.getByText('Buy a pack once with a card').waitFor();
    await screenshots(page, 'billing-before');

    // Buy: Stripe's hosted page (the stand-in's), then back to the page with the credits.
    await page.getByRole('button', { name: 'Buy Starter' }).click();
    await page.getByRole('heading', { name: 'Pay 5.00 USD' }).waitFor();
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    expect(new URL(page.url()).searchParams.get('checkout')).toBe('success');
    await page.getByText('Payment received.').waitFor();
    await page.locator('.stat-value', { hasText: '600' }).waitFor();
    const receipt = page.getByRole('link', { name: /^Receipt/ });
    expect(await receipt.getAttribute('href')).toMatch(/^https:\/\/pay\.stripe\.com\/receipts\//);
    await screenshots(page, 'billing-after-purchase');

    // Automatic top-up: the saved card makes the form appear.
    await page.getByLabel('Pack', { exact: true }).selectOption('bulk');
    await page.getByLabel('Buy when available credits fall below').fill('200');
    await page.getByRole('button', { name: 'Save top-up' }).click();
    await page.getByText('A pack is bought automatically when the balance falls below 200 credits.').waitFor();
    await page.getByText('On: bulk when the balance falls below 200 credits.').waitFor();
    // A bad threshold is shown beside the field.
    await page.getByLabel('Buy when available credits fall below').fill('0');
    await page.getByRole('button', { name: 'Save top-up' }).click();
    await page.getByText(/a whole number of credits from 1/).waitFor();

    // The customer portal, and back.
    await page.getByRole('button', { name: 'Manage cards and invoices' }).click();
    await page.getByRole('heading', { name: 'Customer portal' }).waitFor();
    await page.getByRole('link', { name: 'Return' }).click();
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Billing' }).waitFor();
  });
});
