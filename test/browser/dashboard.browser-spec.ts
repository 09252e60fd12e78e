import { existsSync, rmSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BillingService } from '@gen/billing';
import { Subjects, WebhookSecretReply, WebhookSecretRequest } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { http } from '@gen/testing';
import { verify, WebhookSignatureMismatchError } from '@gen/webhook-signature';
import { ARTIFACTS_DIR, launchChromium, screenshots } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');

// The few browser types the page scripts below use (this project compiles without the DOM library).
type BrowserGlobals = { navigator: { clipboard: { readText(): Promise<string> } } };
type LoadedImage = { complete: boolean; naturalWidth: number };

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A local HTTP server on 127.0.0.1 playing two parts: the customer's webhook receiver (records every
 * POST with its raw body) and another site that tries to make the signed-in browser act (CSRF).
 */
async function startSideServer(dashboardOrigin: string): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST') {
        received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
        return;
      }
      if (request.url === '/attack.html') {
        // A form post (text/plain, no preflight, cookies attached by a same-site browser) and a no-cors fetch.
        response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>
          <form id="f" method="POST" action="${dashboardOrigin}/dashboard/api/keys" enctype="text/plain">
            <input name='{"name":"evil form","x":"' value='"}'>
          </form>
          <script>
            fetch('${dashboardOrigin}/dashboard/api/keys', { method: 'POST', mode: 'no-cors', credentials: 'include',
              headers: { 'content-type': 'text/plain' }, body: '{"name":"evil fetch"}' })
              .finally(() => { document.title = 'fetched'; document.getElementById('f').submit(); });
          </script>`);
        return;
      }
      response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * The customer's path through the dashboard in a real browser (Debian's Chromium, playwright-core),
 * against standalone, with screenshots of each page at laptop and phone width in test-artifacts/.
 */
describe('dashboard in a browser', () => {
  let h: StandaloneHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let side: Awaited<ReturnType<typeof startSideServer>>;
  const email = testEmail('browser');
  const pageErrors: string[] = [];
  // Shared along the path.
  let apiKey = '';
  let keyPrefix = '';
  let generationId = '';
  let secret = '';
  let webhookGenerationId = '';
  let seen = 0;
  /** Waits for the receiver's next POST. */
  const nextDelivery = async (timeoutMs = 15_000): Promise<Received> => {
    const deadline = Date.now() + timeoutMs;
    while (side.received.length <= seen) {
      if (Date.now() > deadline) throw new Error('no webhook delivery arrived');
      await new Promise((r) => setTimeout(r, 50));
    }
    return side.received[seen++];
  };

  const dispatcherSecret = async () => {
    const rpc = h.running.app.get(RpcClient);
    const reply = await rpc.request<WebhookSecretReply, WebhookSecretRequest>(Subjects.authWebhookSecretGet, { apiKeyId: await keyId() });
    return reply.secret;
  };
  const keyId = async (): Promise<string> => {
    const rows: Array<{ id: string }> = await h.running.databases.auth.query('SELECT id FROM api_keys WHERE lookup_id = $1', [
      keyPrefix.slice('gsk_live_'.length),
    ]);
    return rows[0].id;
  };

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
      throw new Error(`The dashboard is not built (${DASHBOARD_DIR}): run the browser tests with "npm run test:browser".`);
    }
    rmSync(ARTIFACTS_DIR, { recursive: true, force: true }); // this run's screenshots only
    h = await startStandaloneHarness({ DASHBOARD_DIR, SIGNUP_CREDITS: '500' });
    side = await startSideServer(h.url);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.url });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (401|403|404|422)/.test(message.text())) pageErrors.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await side?.close();
    await h?.close();
  });

  afterEach(() => {
    // No script errors and no CSP violations on any page.
    expect(pageErrors).toEqual([]);
  });

  it('sends a new visitor to sign-in, and signs up from there', async () => {
    await page.goto(`${h.url}/dashboard/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await screenshots(page, '01-sign-in');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The error sits beside its field and is linked to it.
    const password = page.getByLabel('Password', { exact: true });
    await expect(password.getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByText('Use at least 10 characters.').waitFor();
    await screenshots(page, '02-sign-up-error');

    await password.fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('No generations yet').waitFor();
    expect(await page.getByTestId('available-credits').textContent()).toBe('500');
    await expect(page.getByText('Free', { exact: true }).isVisible()).resolves.toBe(true);
    await screenshots(page, '03-overview-empty');
  });

  it('refuses a wrong password with one message, then signs in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Email or password is incorrect.' }).waitFor();
    await screenshots(page, '04-sign-in-wrong-password');

    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('creates a key that is shown once, with a working copy button, then only by its prefix', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByText('You have no active API keys').waitFor();
    await screenshots(page, '05-api-keys-empty');

    // Keyboard only: type the name, leave both permissions, submit with Enter.
    await page.getByLabel('Name').fill('ci key');
    await page.getByLabel('Name').press('Enter');
    const keyInput = page.getByLabel('API key', { exact: true });
    await keyInput.waitFor();
    apiKey = await keyInput.inputValue();
    expect(apiKey).toMatch(/^gsk_live_[0-9A-Za-z]{32}$/);
    keyPrefix = apiKey.slice(0, 17);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText())).toBe(apiKey);
    await screenshots(page, '06-api-key-created');

    await page.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByText(`${keyPrefix}…${apiKey.slice(-4)}`).waitFor();
    expect(await page.content()).not.toContain(apiKey);
    await page.reload();
    await page.getByText(`${keyPrefix}…${apiKey.slice(-4)}`).waitFor();
    expect(await page.content()).not.toContain(apiKey);
    await screenshots(page, '07-api-keys');
  });

  it('lists a generation made with the key and previews its image', async () => {
    // The operator moves the account to Lite (3D models need it); GET /credits reads the plan afresh.
    const accountId = (await h.running.databases.auth.query('SELECT account_id FROM users WHERE email = $1', [email]))[0].account_id;
    await h.running.app.get(BillingService).setPlan(accountId, 'lite', {});
    expect((await http(h.url, 'GET', '/api/v1/credits', { key: apiKey })).body.plan).toBe('lite');
    const res = await fetch(`${h.url}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' }),
    });
    expect(res.status).toBe(200);
    const record = (await res.json()) as { id: string; output_url: string };
    generationId = record.id;
    // One of each other kind, for their previews (3D needs the Lite plan).
    const others: Record<string, string> = {};
    for (const [model, type] of [
      ['tone-weaver-1', 'TEXT_TO_AUDIO'],
      ['motion-lite-1', 'TEXT_TO_VIDEO'],
      ['mesh-smith-1', 'TEXT_TO_3D'],
    ]) {
      const other = await http(h.url, 'POST', '/api/v1/generate', { key: apiKey, body: { model, prompt: `a ${type} test`, type } });
      expect(other.status).toBe(202);
      others[type] = other.body.id;
    }

    await page.getByRole('link', { name: 'Generations' }).click();
    await page.getByRole('heading', { name: 'Generations' }).waitFor();
    await page.getByRole('link', { name: /a lighthouse at dusk/ }).waitFor();
    await screenshots(page, '08-generations');

    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No generations match these filters').waitFor();
    expect(new URL(page.url()).search).toBe('?status=failed');
    await screenshots(page, '09-generations-filtered-empty');
    await page.getByRole('button', { name: 'Clear filters' }).click();

    await page.getByRole('link', { name: /a lighthouse at dusk/ }).click();
    await page.getByRole('heading', { name: /Image generation/ }).waitFor();
    const image = page.getByRole('img', { name: 'Output of “a lighthouse at dusk”' });
    await image.waitFor();
    await expect(image.evaluate((img) => (img as unknown as LoadedImage).complete && (img as unknown as LoadedImage).naturalWidth)).resolves.toBe(512);
    expect(await image.getAttribute('src')).toBe(record.output_url);
    const png = PNG.sync.read(Buffer.from(await (await fetch(record.output_url)).arrayBuffer()));
    expect(png.width).toBe(512);
    await page.getByText(generationId).waitFor();
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    await screenshots(page, '10-generation-image');

    // Audio player, video player, and a 3D file link; each page polls until its job is done.
    await page.goto(`${h.url}/dashboard/generations/${others.TEXT_TO_AUDIO}`);
    const audio = page.locator('audio');
    await audio.waitFor({ timeout: 30_000 });
    await expect(audio.evaluate((el) => (el as unknown as { controls: boolean }).controls)).resolves.toBe(true);
    await screenshots(page, '11-generation-audio');
    await page.goto(`${h.url}/dashboard/generations/${others.TEXT_TO_VIDEO}`);
    await page.locator('video').waitFor({ timeout: 30_000 });
    await screenshots(page, '12-generation-video');
    await page.goto(`${h.url}/dashboard/generations/${others.TEXT_TO_3D}`);
    const glb = page.getByRole('link', { name: 'Download the 3D model (.glb)' });
    await glb.waitFor({ timeout: 30_000 });
    expect(await glb.getAttribute('href')).toMatch(/\.glb$/);
    // The interactive preview (three.js) loads the file and draws its mesh in a WebGL canvas.
    await page.locator('.model-preview[data-state="ready"]').waitFor({ timeout: 30_000 });
    expect(Number(await page.locator('.model-preview').getAttribute('data-meshes'))).toBeGreaterThan(0);
    await expect(page.getByRole('img', { name: /^Output of “a TEXT_TO_3D test”/ }).evaluate((c) => (c as unknown as { width: number }).width)).resolves.toBeGreaterThan(0);
    await screenshots(page, '13-generation-3d');
  });

  it('sets a webhook URL, which generates the signing secret the dispatcher signs with', async () => {
    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByRole('button', { name: 'Set the default webhook URL of ci key' }).click();
    const url = page.getByLabel('Default webhook URL of “ci key”');
    await url.fill('hooks.example.com/generation');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Webhook URL must be an absolute URL').waitFor();
    await expect(url.getAttribute('aria-invalid')).resolves.toBe('true');
    await screenshots(page, '14-webhook-url-error');

    await url.fill(`${side.url}/hook`);
    await page.getByRole('button', { name: 'Save' }).click();
    const secretInput = page.getByLabel('Webhook signing secret of “ci key”');
    await secretInput.waitFor();
    secret = await secretInput.inputValue();
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    // The key's first secret: nothing earlier to stop verifying.
    await page.getByText('Your receiver verifies each webhook of this key with it.').waitFor();
    expect(await page.content()).not.toContain('no longer verify');
    await page.getByText(`${side.url}/hook`).waitFor();
    await screenshots(page, '15-webhook-secret-generated');
    // What the webhooks dispatcher receives over auth.webhook-secret.get is exactly this secret.
    await expect(dispatcherSecret()).resolves.toBe(secret);
    await page.getByRole('button', { name: 'Hide secret' }).click();
  });

  it('delivers the next generation to that URL, signed with that secret, and shows the delivery', async () => {
    const res = await http(h.url, 'POST', '/api/v1/generate', {
      key: apiKey,
      body: { model: 'pixel-flux-1', prompt: 'a signed lighthouse', type: 'TEXT_TO_IMAGE' },
    });
    expect(res.status).toBe(200);
    webhookGenerationId = res.body.id;
    const delivery = await nextDelivery();
    expect(delivery.path).toBe('/hook');
    expect(delivery.headers['x-service-event']).toBe('generation.completed');
    expect(delivery.headers['user-agent']).toBe('Service-Webhook/1.0');
    expect(verify(delivery.body, delivery.headers, secret)).toMatchObject({
      event: 'generation.completed',
      deliveryId: expect.stringMatching(/^wh_/),
    });
    expect(JSON.parse(delivery.body.toString('utf8'))).toMatchObject({ id: webhookGenerationId, status: 'completed' });

    await page.goto(`${h.url}/dashboard/generations/${webhookGenerationId}`);
    const item = page.locator('.delivery').filter({ hasText: delivery.headers['x-service-delivery-id'] as string });
    await item.locator('.badge', { hasText: 'Delivered' }).waitFor();
    await item.getByText('Delivered · HTTP 200').waitFor();
    await screenshots(page, '16-generation-delivered');
  });

  it('renews the secret after a warning; the dispatcher then has only the new one', async () => {
    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByRole('button', { name: 'Renew secret for ci key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Renew the signing secret?' });
    await dialog.waitFor();
    await dialog.getByText('Signatures made with the current secret fail verification at once.').waitFor();
    await screenshots(page, '17-renew-secret-warning', { fullPage: false });
    // Escape cancels and changes nothing.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expect(dispatcherSecret()).resolves.toBe(secret);

    await page.getByRole('button', { name: 'Renew secret for ci key' }).click();
    await dialog.getByRole('button', { name: 'Renew secret' }).click();
    const secretInput = page.getByLabel('Webhook signing secret of “ci key”');
    await secretInput.waitFor();
    const renewed = await secretInput.inputValue();
    expect(renewed).toMatch(/^whsec_/);
    await page.getByText('Signatures made with the previous secret of this key no longer verify.').waitFor();
    expect(renewed).not.toBe(secret);
    await expect(dispatcherSecret()).resolves.toBe(renewed);
    await screenshots(page, '18-secret-renewed');

    // The next delivery (Redeliver on the generation's page) verifies with the new secret only.
    await page.goto(`${h.url}/dashboard/generations/${webhookGenerationId}`);
    await page.getByRole('button', { name: 'Redeliver' }).click();
    const delivery = await nextDelivery();
    expect(verify(delivery.body, delivery.headers, renewed)).toMatchObject({ event: 'generation.completed' });
    expect(() => verify(delivery.body, delivery.headers, secret)).toThrow(WebhookSignatureMismatchError);
    // The new delivery is the last one listed, above the button; the message says so.
    await page.getByText(/Sent again as a new delivery \(wh_\w+\): the last one in the list above\./).waitFor();
    const redelivery = page.locator('.delivery').nth(1);
    await redelivery.getByText('redelivery').waitFor();
    await redelivery.locator('.badge', { hasText: 'Delivered' }).waitFor();
    await redelivery.getByText('Delivered · HTTP 200').waitFor();
    await screenshots(page, '19-generation-redelivered');
    secret = renewed;
  });

  it('refuses state changes without the CSRF token, from the page itself or from another site', async () => {
    const count = async () => (await h.running.databases.auth.query('SELECT count(*)::int AS n FROM api_keys WHERE name LIKE $1', ['evil%']))[0].n;
    const forged = await page.evaluate(async () => {
      const response = await fetch('/dashboard/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"evil no token"}' });
      return { status: response.status, body: (await response.json()) as { error: { code: string } } };
    });
    expect(forged).toEqual({ status: 403, body: { error: expect.objectContaining({ code: 'forbidden' }) } });

    const attacker = await context.newPage();
    await attacker.goto(`${side.url}/attack.html`);
    await attacker.waitForURL(/dashboard\/api\/keys/, { timeout: 10_000 }).catch(() => undefined);
    await attacker.close();
    expect(await count()).toBe(0);
  });

  it('hides another account\'s generation behind "not found"', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const otherPage = await other.newPage();
    await otherPage.goto(`${h.url}/dashboard/sign-up`);
    await otherPage.getByLabel('Email').fill(testEmail('other'));
    await otherPage.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await otherPage.getByRole('button', { name: 'Create account' }).click();
    await otherPage.getByRole('heading', { name: 'Overview' }).waitFor();
    const status = await otherPage.evaluate(async (id) => (await fetch(`/dashboard/api/generations/${id}`)).status, generationId);
    expect(status).toBe(404);
    await otherPage.goto(`${h.url}/dashboard/generations/${generationId}`);
    await otherPage.getByRole('heading', { name: 'Generation not found' }).waitFor();
    expect(await otherPage.content()).not.toContain('a lighthouse at dusk');
    await screenshots(otherPage, '20-other-account-generation-not-found');
    await other.close();
  });

  it('revokes the key after a confirmation: the API answers 401 at once', async () => {
    await page.goto(`${h.url}/dashboard/settings/keys`);
    await page.getByRole('button', { name: 'Revoke ci key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke “ci key”?' });
    await dialog.waitFor();
    await screenshots(page, '21-revoke-confirm', { fullPage: false });
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('You have no active API keys').waitFor();
    await page.getByText('Revoked keys (1)').click();
    await page.getByText(`${keyPrefix}…${apiKey.slice(-4)}`).waitFor();
    await screenshots(page, '22-api-keys-revoked');
    const res = await http(h.url, 'GET', '/api/v1/generations', { key: apiKey });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('shows the overview with recent generations and credits', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Recent generations' }).waitFor();
    await page.getByRole('link', { name: /a lighthouse at dusk/ }).waitFor();
    await screenshots(page, '23-overview');
  });
});
