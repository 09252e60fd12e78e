import { existsSync, rmSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { http } from '@gen/testing';
import { verifyWebhook } from '@generation-service/sdk';
import { ARTIFACTS_ROOT, launchChromium, screenshots as shoot } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
const SHOTS = join(ARTIFACTS_ROOT, 'webhook-schemes');
const KEY_NAME = 'receiver';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A key's webhook signature scheme in the dashboard (Settings, API Keys), in Chromium against
 * standalone: the scheme select, the rotate-with-overlap form (a refused overlap, then a rotation),
 * and back; each choice checked on a real delivery, verified with the `standardwebhooks` package and
 * the SDK. Screenshots at laptop and phone width in test-artifacts/webhook-schemes/.
 */
describe('webhook signature schemes in the dashboard', () => {
  let h: StandaloneHarness;
  let browser: Browser;
  let page: Page;
  let receiver: Server;
  const received: Received[] = [];
  const pageErrors: string[] = [];
  let apiKey = '';
  let firstSecret = '';

  const screenshots = (name: string) => shoot(page, name, { dir: SHOTS });
  /** A synchronous image with the key, and the webhook request it caused. */
  const delivery = async (): Promise<Received & { id: string }> => {
    const before = received.length;
    const generation = await http(h.url, 'POST', '/api/v1/generate', { key: apiKey, body: { model: 'pixel-flux-1', prompt: 'a signed lighthouse', type: 'TEXT_TO_IMAGE' } });
    expect(generation.status).toBe(200);
    for (let i = 0; i < 400 && !received.slice(before).some((r) => JSON.parse(r.body).id === generation.body.id); i++) await page.waitForTimeout(50);
    const request = received.slice(before).find((r) => JSON.parse(r.body).id === generation.body.id);
    if (!request) throw new Error('no webhook delivery within 20 s');
    return { ...request, id: generation.body.id as string };
  };
  const schemeSelect = () => page.getByLabel('Signature scheme');
  const rotateForm = () => page.getByRole('form', { name: `Rotate the signing secret of ${KEY_NAME}` });

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
      throw new Error(`The dashboard is not built (${DASHBOARD_DIR}): run the browser tests with "npm run test:browser".`);
    }
    rmSync(SHOTS, { recursive: true, force: true });
    h = await startStandaloneHarness({ DASHBOARD_DIR, SIGNUP_CREDITS: '500' });
    receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (401|403|404|409|422)/.test(message.text())) pageErrors.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    await h?.close();
  });

  afterEach(() => expect(pageErrors).toEqual([]));

  it('a new key signs the spec way; the rotate form is only for Standard Webhooks keys', async () => {
    await page.goto(`${h.url}/dashboard/sign-up`);
    await page.getByLabel('Email').fill(testEmail('schemes'));
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByLabel('Name').fill(KEY_NAME);
    await page.getByLabel('Default webhook URL (optional)').fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = await page.getByLabel('API key', { exact: true }).inputValue();
    firstSecret = await page.getByLabel('Webhook signing secret', { exact: true }).inputValue();
    await page.getByRole('button', { name: 'I have saved it' }).click();

    await expect(schemeSelect().inputValue()).resolves.toBe('service');
    await expect(rotateForm().count()).resolves.toBe(0);
    const request = await delivery();
    expect(request.headers['webhook-signature']).toBeUndefined();
    await expect(verifyWebhook({ payload: request.body, headers: request.headers, secret: firstSecret })).resolves.toMatchObject({ scheme: 'service' });
    await screenshots('01-scheme-service');
  });

  it('choosing Standard Webhooks: the next delivery verifies with the standardwebhooks package as it is', async () => {
    await schemeSelect().selectOption({ label: 'Standard Webhooks (webhook-signature)' });
    await rotateForm().waitFor();
    await page.reload();
    await expect(schemeSelect().inputValue()).resolves.toBe('standard'); // saved, not only shown
    const request = await delivery();
    expect(request.headers['x-service-signature']).toBeUndefined();
    expect(new Webhook(firstSecret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ id: request.id });
    await screenshots('02-scheme-standard');
  });

  it('rotating with an overlap: a refused overlap says why; then both secrets verify until it ends', async () => {
    const hours = rotateForm().getByLabel('Rotate with an overlap (hours, up to 24)');
    await hours.fill('30');
    await rotateForm().getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('alert').getByText('Choose an overlap from a few minutes (0.1) to 24 hours.').waitFor();
    await screenshots('03-rotate-refused');

    await hours.fill('2');
    await rotateForm().getByRole('button', { name: 'Rotate secret' }).click();
    const secret = await page.getByLabel(`Webhook signing secret of “${KEY_NAME}”`).inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(firstSecret);
    await page.getByText('Give it to your receiver before the overlap ends').waitFor();
    const until = (await page.getByTestId(/^overlap-/).textContent()) ?? '';
    expect(until).toContain('deliveries carry signatures with the previous and the new secret until');
    await screenshots('04-rotated-with-overlap');

    const request = await delivery();
    expect((request.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    for (const one of [firstSecret, secret]) expect(new Webhook(one).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ id: request.id });

    // Back to the spec's headers: one signature, with the new secret; the overlap ends.
    await schemeSelect().selectOption('service');
    await rotateForm().waitFor({ state: 'detached' });
    await expect(page.getByTestId(/^overlap-/).count()).resolves.toBe(0);
    const back = await delivery();
    await expect(verifyWebhook({ payload: back.body, headers: back.headers, secret })).resolves.toMatchObject({ scheme: 'service' });
    await expect(verifyWebhook({ payload: back.body, headers: back.headers, secret: firstSecret })).rejects.toMatchObject({ reason: 'signature_mismatch' });
    await screenshots('05-back-to-service');
  });
});
