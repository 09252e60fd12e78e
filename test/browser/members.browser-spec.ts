import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS_ROOT, launchChromium, screenshots as shoot } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
const SHOTS = join(ARTIFACTS_ROOT, 'dashboard-members');

/**
 * Members and roles in Chromium against standalone: an owner invites a developer, who accepts the
 * mailed link in a second browser context by choosing a password; the developer's pages hide what
 * the role cannot do; a role lowered to viewer takes effect at once; a user of two accounts switches
 * with the account picker. Screenshots at laptop and phone width in test-artifacts/dashboard-members/.
 */
describe('members and roles in a browser', () => {
  let h: StandaloneHarness;
  let smtp: SmtpSink;
  let browser: Browser;
  let ownerContext: BrowserContext;
  let memberContext: BrowserContext;
  let owner: Page;
  let member: Page;
  const ownerEmail = testEmail('owner');
  const devEmail = testEmail('dev');
  const pageErrors: string[] = [];
  const screenshots = (p: Page, name: string) => shoot(p, name, { dir: SHOTS });

  const watch = (page: Page) => {
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (401|403|404|409|422)/.test(message.text())) pageErrors.push(message.text());
    });
    return page;
  };

  /** The link in the latest mail to an address. */
  async function mailedLink(address: string, count: number): Promise<string> {
    const mails = await smtp.mailsTo(address, count);
    const links = mails[mails.length - 1].links;
    expect(links).toHaveLength(1);
    return links[0];
  }

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
      throw new Error(`The dashboard is not built (${DASHBOARD_DIR}): run the browser tests with "npm run test:browser".`);
    }
    rmSync(SHOTS, { recursive: true, force: true });
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({ DASHBOARD_DIR, SMTP_URL: smtp.url });
    browser = await launchChromium();
    ownerContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    memberContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    owner = watch(await ownerContext.newPage());
    member = watch(await memberContext.newPage());
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await smtp?.close();
  });
  afterEach(() => expect(pageErrors).toEqual([]));

  it('an owner invites a developer by email; the link, opened in another browser, joins with a new password', async () => {
    await owner.goto(`${h.url}/dashboard/sign-up`);
    await owner.getByLabel('Email').fill(ownerEmail);
    await owner.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await owner.getByRole('button', { name: 'Create account' }).click();
    await owner.getByRole('heading', { name: 'Overview' }).waitFor();
    await owner.goto(`${h.url}/dashboard/settings/keys`);
    await owner.getByLabel('Name').fill('production');
    await owner.getByRole('button', { name: 'Create key' }).click();
    await owner.getByRole('button', { name: 'I have saved it' }).click();

    await owner.getByRole('link', { name: 'Members' }).click();
    await owner.getByLabel('Email').fill(devEmail);
    await owner.getByLabel('Role').selectOption('developer');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await owner.getByText(`Invitation sent to ${devEmail}.`).waitFor();
    await owner.locator('.invitation-item').getByText(devEmail).waitFor();
    await screenshots(owner, '01-members-invitation-sent');

    const link = await mailedLink(devEmail, 1);
    await member.goto(link);
    await member.getByText(`${ownerEmail} invited ${devEmail} to join`).waitFor();
    await expect(member.getByLabel('Email').inputValue()).resolves.toBe(devEmail);
    await member.getByLabel('Choose a password').fill('short');
    await member.getByRole('button', { name: 'Create your user and join' }).click();
    await member.getByText('Use at least 10 characters.').waitFor();
    await screenshots(member, '02-invitation-choose-password');
    await member.getByLabel('Choose a password').fill(TEST_PASSWORD);
    await member.getByRole('button', { name: 'Create your user and join' }).click();
    await member.getByRole('heading', { name: 'Overview' }).waitFor();

    await owner.reload();
    await owner.locator(`tr[data-member="${devEmail}"]`).waitFor();
    await expect(owner.locator('.invitation-item').count()).resolves.toBe(0);
    // Reused: the link no longer works.
    const again = watch(await memberContext.newPage());
    await again.goto(link);
    await again.getByText(/This invitation is not valid/).waitFor();
    await again.close();
  });

  it('shows a developer only what the role allows, and refuses the audit log', async () => {
    await member.goto(`${h.url}/dashboard/settings/keys`);
    const card = member.locator('li.key').filter({ hasText: 'production' });
    await card.getByRole('button', { name: 'Revoke production' }).waitFor();
    await expect(card.getByRole('button', { name: /spending caps/i }).count()).resolves.toBe(0);
    await expect(card.getByRole('button', { name: /secret for production/ }).count()).resolves.toBe(0);
    await card.getByText('Webhook URL').waitFor();
    await member.getByRole('button', { name: 'Create key' }).waitFor();
    const tabs = await member.getByRole('navigation', { name: 'Settings' }).getByRole('link').allTextContents();
    expect(tabs).toEqual(['API keys', 'Members', 'Account']);
    await screenshots(member, '03-developer-keys');

    await member.getByRole('link', { name: 'Members' }).click();
    await member.locator(`tr[data-member="${ownerEmail}"]`).waitFor();
    await expect(member.getByRole('button', { name: 'Send invitation' }).count()).resolves.toBe(0);
    await expect(member.getByRole('combobox', { name: /^Role of/ }).count()).resolves.toBe(0);
    await member.getByRole('button', { name: 'Leave this account' }).waitFor();
    await screenshots(member, '04-developer-members');

    await member.goto(`${h.url}/dashboard/settings/audit`);
    await member.getByText('This page is for owners and admins of this account.').waitFor();
  });

  it('a role lowered to viewer applies at once; the owner sees every change in the audit log', async () => {
    await owner.goto(`${h.url}/dashboard/settings/members`);
    const changed = owner.waitForResponse((r) => r.url().endsWith('/role') && r.request().method() === 'PUT');
    await owner.getByRole('combobox', { name: `Role of ${devEmail}` }).selectOption('viewer');
    expect((await changed).status()).toBe(204);
    // The list is read again after the change: the select shows the role the server has.
    // (Read through the locator, not a string evaluated in the page: the dashboard's CSP forbids eval.)
    const roleSelect = owner.locator(`tr[data-member="${devEmail}"] select`);
    for (let i = 0; i < 100 && (await roleSelect.inputValue()) !== 'viewer'; i++) await owner.waitForTimeout(100);
    expect(await roleSelect.inputValue()).toBe('viewer');
    await screenshots(owner, '05-owner-members');

    await member.goto(`${h.url}/dashboard/settings/keys`);
    await member.getByText('Your role on this account is viewer.').waitFor();
    await expect(member.getByRole('button', { name: 'Create key' }).count()).resolves.toBe(0);
    await expect(member.getByRole('button', { name: 'Revoke production' }).count()).resolves.toBe(0);
    await expect(member.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playground', exact: true }).count()).resolves.toBe(0);
    await screenshots(member, '06-viewer-keys');

    await owner.goto(`${h.url}/dashboard/settings/audit`);
    // (jsonb keeps shorter keys first.)
    await owner.locator('tr[data-action="member.role_changed"]').getByText(/to: viewer; from: developer/).waitFor();
    await owner.locator('tr[data-action="member.joined"]').waitFor();
    await owner.locator('tr[data-action="member.invited"]').waitFor();
  });

  it('a member of two accounts accepts a second invitation signed in, and switches with the account picker', async () => {
    const other = await h.running.provisioning.createAccountWithSignIn('Studio North', testEmail('studio'), 'pro', 100);
    if (!other) throw new Error('account not created');
    const studioContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const studioPage = watch(await studioContext.newPage());
    await studioPage.goto(`${h.url}/dashboard/sign-in`);
    await studioPage.getByLabel('Email').fill(other.email);
    await studioPage.getByLabel('Password').fill(other.password);
    await studioPage.getByRole('button', { name: 'Sign in' }).click();
    await studioPage.getByRole('heading', { name: 'Overview' }).waitFor();
    await studioPage.goto(`${h.url}/dashboard/settings/members`);
    await studioPage.getByLabel('Email').fill(devEmail);
    await studioPage.getByLabel('Role').selectOption('admin');
    await studioPage.getByRole('button', { name: 'Send invitation' }).click();
    await studioPage.getByText(`Invitation sent to ${devEmail}.`).waitFor();
    await studioContext.close();

    await member.goto(await mailedLink(devEmail, 2));
    await member.getByRole('button', { name: 'Join Studio North' }).click();
    await member.getByRole('heading', { name: 'Overview' }).waitFor();
    const picker = member.getByRole('combobox', { name: 'Account' });
    await expect(picker.locator('option:checked').textContent()).resolves.toBe('Studio North (admin)');
    await member.goto(`${h.url}/dashboard/settings/audit`);
    await member.locator('tr[data-action="member.joined"]').waitFor();
    await screenshots(member, '07-account-picker-admin');

    const team = (await picker.locator('option').allTextContents()).find((t) => t !== 'Studio North (admin)') as string;
    await picker.selectOption({ label: team });
    await member.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect(member.getByRole('combobox', { name: 'Account' }).locator('option:checked').textContent()).resolves.toBe(team);
    await member.goto(`${h.url}/dashboard/settings/audit`);
    await member.getByText('This page is for owners and admins of this account.').waitFor();
  });
});
