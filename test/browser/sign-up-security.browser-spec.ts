import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS_ROOT, launchChromium, screenshots as shoot } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
const SHOTS = join(ARTIFACTS_ROOT, 'sign-up-security');

/**
 * Sign-up with email verification and two-factor sign-in in Chromium against standalone in
 * SIGNUP_MODE=verified, mails to a real SMTP server in process: sign up, keys refused until the
 * mail's link is followed, set up TOTP (codes made from the key the page shows), sign in again
 * with the code; screenshots at laptop and phone width in test-artifacts/sign-up-security/.
 */
describe('sign-up, email verification and two-factor sign-in in a browser', () => {
  let h: StandaloneHarness;
  let smtp: SmtpSink;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const email = testEmail('browser-2fa');
  const pageErrors: string[] = [];
  const screenshots = (p: Page, name: string) => shoot(p, name, { dir: SHOTS });

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
      throw new Error(`The dashboard is not built (${DASHBOARD_DIR}): run the browser tests with "npm run test:browser".`);
    }
    rmSync(SHOTS, { recursive: true, force: true });
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({ DASHBOARD_DIR, SIGNUP_MODE: 'verified', SIGNUP_CREDITS: '50', SMTP_URL: smtp.url });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (401|403|409|422)/.test(message.text())) pageErrors.push(message.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await smtp?.close();
  });
  afterEach(() => expect(pageErrors).toEqual([]));

  let totp: TOTP;

  it('signs up; keys wait for the verification link, which the mail brings', async () => {
    await page.goto(`${h.url}/dashboard/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('Verify your email address').first().waitFor();
    await screenshots(page, '01-verify-notice');

    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByLabel('Name').fill('first key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Verify your email address before creating API keys').waitFor();
    await screenshots(page, '02-key-refused-unverified');

    const [mail] = await smtp.mailsTo(email, 1, 10_000, 'Verify your email address');
    await page.goto(mail.links[0]);
    await page.getByText('Email address verified').waitFor();
    await screenshots(page, '03-email-verified');

    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByLabel('Name').fill('first key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await page.getByText('Verify your email address').count()).toBe(0);
  });

  it('sets up two-factor sign-in with a code from the key shown, and gets ten recovery codes', async () => {
    await page.goto(`${h.url}/dashboard/settings/account`);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const key = await page.getByLabel('Setup key').inputValue();
    expect(await page.getByLabel('otpauth link').inputValue()).toContain(`secret=${key}`);
    await screenshots(page, '04-two-factor-setup');
    totp = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
    // Turning it on asks for the password again.
    await page.getByLabel('Your password').fill(TEST_PASSWORD);
    await page.getByLabel('Code from your app').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('This code is not right').waitFor();
    await page.getByLabel('Code from your app').fill(totp.generate());
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    await page.getByText('Recovery codes left: 10').waitFor();
    await screenshots(page, '05-recovery-codes');
  });

  it('signs in again with the password, then the code', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await screenshots(page, '06-sign-in-code');
    // The enrolment used the current step's code: the next step's is the one not used yet.
    await page.getByLabel('Code').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    // Back where sign-out left off (the sign-in page's `next`), signed in.
    await page.getByText(`Signed in as ${email}.`).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings/account');
    await page.getByText('Recovery codes left: 10').waitFor();
    await screenshots(page, '07-signed-in');
  });
});
