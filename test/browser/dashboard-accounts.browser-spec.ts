import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BillingService } from '@gen/billing';
import { http } from '@gen/testing';
import { ARTIFACTS_ROOT, launchChromium, screenshots as shoot } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
const SHOTS = join(ARTIFACTS_ROOT, 'dashboard-accounts');
const RESET_PASSWORD = 'a brand new passphrase';

/**
 * Spending caps and the audit log in Chromium against standalone: a key's caps set on the keys page,
 * a generation refused by the cap, refused cap values shown beside their field, and the audit page
 * with its filters and CSV export; screenshots at laptop and phone width in test-artifacts/dashboard-accounts/.
 */
describe('spending caps and the audit log in a browser', () => {
  let h: StandaloneHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const email = testEmail('caps');
  const pageErrors: string[] = [];
  let apiKey = '';
  let smtp: SmtpSink;
  const screenshots = (p: Page, name: string) => shoot(p, name, { dir: SHOTS });

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
      throw new Error(`The dashboard is not built (${DASHBOARD_DIR}): run the browser tests with "npm run test:browser".`);
    }
    rmSync(SHOTS, { recursive: true, force: true });
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({ DASHBOARD_DIR, SIGNUP_CREDITS: '500', SMTP_URL: smtp.url });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (401|402|403|404|409|422)/.test(message.text())) pageErrors.push(message.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await smtp?.close();
  });
  afterEach(() => expect(pageErrors).toEqual([]));

  it('sets a daily cap on a key; a generation past it is refused with the cap and its reset, and the key shows its spend', async () => {
    await page.goto(`${h.url}/dashboard/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const accountId = (await h.running.databases.auth.query('SELECT account_id FROM users WHERE email = $1', [email]))[0].account_id;
    await h.running.app.get(BillingService).setPlan(accountId, 'pro', { rpm: 200 });

    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByLabel('Name').fill('nightly batch');
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = await page.getByLabel('API key', { exact: true }).inputValue();
    await page.getByRole('button', { name: 'I have saved it' }).click();

    await page.getByRole('button', { name: 'Set the spending caps of nightly batch' }).click();
    await page.getByLabel('Credits per day (UTC)').fill('0');
    await page.getByLabel('Credits per month (UTC)').fill('2.5');
    await page.getByRole('button', { name: 'Save caps' }).click();
    await page.getByText('Enter a whole number of credits, at least 1, or leave it empty for no cap.').first().waitFor();
    await expect(page.getByLabel('Credits per day (UTC)').getAttribute('aria-invalid')).resolves.toBe('true');
    await screenshots(page, '01-caps-refused-values');

    await page.getByLabel('Credits per day (UTC)').fill('8');
    await page.getByLabel('Credits per month (UTC)').fill('');
    await page.getByRole('button', { name: 'Save caps' }).click();
    const caps = page.locator('[data-testid^="caps-"]');
    await caps.getByText('0 of 8 credits today; no monthly cap (0 spent this month)').waitFor();

    const body = { model: 'pixel-flux-1', prompt: 'a night sky', type: 'TEXT_TO_IMAGE' };
    for (let i = 0; i < 2; i++) expect((await http(h.url, 'POST', '/api/v1/generate', { key: apiKey, body })).status).toBe(200);
    const refused = await http(h.url, 'POST', '/api/v1/generate', { key: apiKey, body });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('spending_cap_reached');

    await page.reload();
    await caps.getByText('8 of 8 credits today').waitFor();
    // The playground says the same as the API.
    await page.getByRole('link', { name: 'Playground', exact: true }).click();
    await page.getByLabel('Model').selectOption('pixel-flux-1');
    await page.getByLabel('Prompt').fill('one more');
    await page.getByRole('button', { name: /^Generate/ }).click();
    await page.getByText(/Spending cap reached: this API key may spend 8 credits per day \(UTC\)/).waitFor();
    await screenshots(page, '02-playground-cap-reached');

    await page.goto(`${h.url}/dashboard/settings/keys`);
    await caps.getByText('8 of 8 credits today').waitFor();
    await screenshots(page, '03-keys-with-caps');
  });

  it('the audit page lists who did what, filters by action and who, and exports the selection as CSV', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    const rows = page.locator('table.audit tbody tr');
    await page.locator('tr[data-action="key.caps_set"]').waitFor();
    const actions = await rows.evaluateAll((trs) => trs.map((tr) => (tr as unknown as { dataset: { action: string } }).dataset.action));
    expect(actions).toEqual(['key.caps_set', 'key.created', 'user.signed_up']);
    await page.locator('tr[data-action="key.caps_set"]').getByText(/per day: 8/).waitFor();
    await page.locator('tr[data-action="user.signed_up"] td[data-label="Who"]').getByText(email).waitFor();
    await screenshots(page, '04-audit-log');

    await page.getByLabel('Action').selectOption('key.created');
    await page.locator('table.audit tbody tr:not([data-action="key.created"])').first().waitFor({ state: 'detached' });
    await page.locator('tr[data-action="key.created"]').waitFor();
    await expect(rows.count()).resolves.toBe(1);
    await page.locator('tr[data-action="key.created"]').getByText(/name: nightly batch/).waitFor();
    await screenshots(page, '05-audit-log-filtered');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export CSV' }).click();
    const file = await (await download).path();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,at,actor_kind,actor,ip,action,target,details');
    expect(lines.slice(1).map((l) => l.split(',')[5])).toEqual(['key.created']);

    await page.getByLabel('Action').selectOption('');
    await page.getByLabel('Who').selectOption(email);
    await page.locator('tr[data-action="user.signed_up"]').waitFor();
    await expect(rows.count()).resolves.toBe(3);
    await page.getByLabel('Who').selectOption('');
  });

  it("renames a key and takes a permission away: the card shows both, the key loses it at once, and the audit page records each with the value before", async () => {
    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByRole('button', { name: 'Rename or change the permissions of nightly batch' }).click();
    const form = page.getByRole('form', { name: 'Name and permissions of nightly batch' });
    await form.getByLabel('Name').fill('');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Enter a name for the key.').waitFor();
    await form.getByLabel('Name').fill('nightly renders');
    await form.getByLabel('Read').uncheck();
    await screenshots(page, '08-key-rename-form');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'nightly renders' }).waitFor();
    await form.waitFor({ state: 'detached' });
    await screenshots(page, '09-key-renamed');
    expect((await http(h.url, 'GET', '/api/v1/generations', { key: apiKey })).status).toBe(403);

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.locator('tr[data-action="key.renamed"]').getByText(/nightly batch/).waitFor();
    await page.locator('tr[data-action="key.scopes_changed"]').waitFor();
    await screenshots(page, '10-audit-key-renamed');
  });

  it('a forgotten password: the mailed link opens the reset page, the new password works and every session ended', async () => {
    const NEW_PASSWORD = RESET_PASSWORD;
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const reset = await other.newPage();
    await reset.goto(`${h.url}/dashboard/sign-in`);
    await reset.getByRole('link', { name: 'Forgot your password?' }).click();
    await reset.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await screenshots(reset, '06-forgot-password');
    await reset.getByLabel('Email').fill(email);
    await reset.getByRole('button', { name: 'Send me a link' }).click();
    await reset.getByText('If an account uses this address, a link to choose a new password is on its way.').waitFor();
    const [mail] = await smtp.mailsTo(email, 1, 10_000, 'Choose a new password');
    await reset.goto(mail.links[0]);
    await reset.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await reset.getByLabel('New password').fill('short');
    await reset.getByRole('button', { name: 'Set new password' }).click();
    await reset.getByText('Use at least 10 characters.').waitFor();
    await screenshots(reset, '07-reset-password');
    await reset.getByLabel('New password').fill(NEW_PASSWORD);
    await reset.getByRole('button', { name: 'Set new password' }).click();
    await reset.getByText('Your password is changed, and every session was signed out.').waitFor();
    await reset.getByRole('button', { name: 'Sign in' }).click();
    await reset.getByLabel('Email').fill(email);
    await reset.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await reset.getByRole('button', { name: 'Sign in' }).click();
    await reset.getByRole('heading', { name: 'Overview' }).waitFor();
    await other.close();
    // The first browser's session ended with the reset: its next call signs it out.
    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
  it('sets the low-balance alert on the account page: a bad value is shown beside the field, a good one saved, the crossing shown', async () => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(RESET_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' }); // back where it was sent from
    await page.goto(`${h.url}/dashboard/settings/account`);
    const field = page.getByLabel('Alert below (credits)');
    await field.fill('12.5');
    await page.getByRole('button', { name: 'Save threshold' }).click();
    await page.getByText('Enter a whole number of credits from 0 to 2,147,483,647, or leave it empty for no alerts.').waitFor();
    await screenshots(page, '08-low-balance-refused');
    const accountId = (await h.running.databases.auth.query('SELECT account_id FROM users WHERE email = $1', [email]))[0].account_id;
    const { available } = await h.running.app.get(BillingService).balance(accountId);
    await field.fill(String(available + 1));
    await page.getByRole('button', { name: 'Save threshold' }).click();
    await page.getByText(`You will be alerted when available credits fall below ${(available + 1).toLocaleString('en-US')}.`).waitFor();
    // An operator's debit of 1 credit lowers the balance below the threshold: the crossing, alerted.
    await h.running.app.get(BillingService).adjust(accountId, -1, 'browser test');
    await page.reload();
    await page.getByText('(below the threshold: alerted)').waitFor();
    expect(await page.getByLabel('Alert below (credits)').inputValue()).toBe(String(available + 1));
    await screenshots(page, '09-low-balance-set');
    const alert = (mails: Array<{ subject: string }>) => mails.filter((m) => m.subject.startsWith(`Low balance: ${available - 1} credits left on `));
    for (let i = 0; i < 100 && alert(await smtp.mailsTo(email, 0, 0)).length === 0; i++) await page.waitForTimeout(50);
    expect(alert(await smtp.mailsTo(email, 0, 0))).toHaveLength(1);
  });
});
