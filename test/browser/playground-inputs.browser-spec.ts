import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Browser, Page } from 'playwright-core';
import { CatalogueAdminModule, CatalogueAdminService } from '@gen/generation';
import { FakeReplicate, http, startFakeReplicate } from '@gen/testing';
import { ARTIFACTS_ROOT, LAPTOP, launchChromium, screenshots } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
const SHOTS = join(ARTIFACTS_ROOT, 'playground-inputs');

/** A flux-schnell-like model on the Replicate fake: its input schema is what the playground's form is built from. */
const INPUTS = {
  type: 'object',
  properties: {
    aspect_ratio: { type: 'string', enum: ['1:1', '16:9', '9:16', '4:3'], default: '1:1', description: 'Aspect ratio of the images.' },
    num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1, description: 'Number of images (the price is per image).' },
    output_quality: { type: 'integer', minimum: 0, maximum: 100, default: 80, description: 'Quality of webp and jpg images.' },
    seed: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'Random seed.' },
    go_fast: { type: 'boolean', default: true, description: 'Faster run.' },
    image_prompt: { type: 'string', format: 'uri', description: 'An image that guides the composition.' },
  },
  additionalProperties: false,
};

/**
 * The playground's form from the model's input schema, in Chromium against standalone and the
 * Replicate fake: enums as selects, short ranges as sliders, wide ones as number fields, booleans as
 * checkboxes, media as a URL or an uploaded file; a refused input named at its field; several outputs shown; the
 * generation page with the input as applied and the metadata. Screenshots at laptop and phone width
 * in test-artifacts/playground-inputs/.
 */
describe('dashboard: the playground builds its form from the model inputs', () => {
  let h: StandaloneHarness;
  let fake: FakeReplicate;
  let admin: INestApplicationContext;
  let browser: Browser;
  let page: Page;
  let key = '';
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) throw new Error('The dashboard is not built: run "npm run test:browser".');
    rmSync(SHOTS, { recursive: true, force: true });
    fake = await startFakeReplicate();
    h = await startStandaloneHarness({ DASHBOARD_DIR, SIGNUP_CREDITS: '500', REPLICATE_API_TOKEN: fake.token });
    admin = await NestFactory.createApplicationContext(CatalogueAdminModule.register(h.running.databases.generation), { logger: false });
    await admin.get(CatalogueAdminService).add({
      id: 'fox-flux',
      name: 'Fox Flux (fast image)',
      type: 'TEXT_TO_IMAGE',
      credits: 3,
      minimum_credits: 3,
      synchronous: true,
      min_plan: 'free',
      description: 'A fast image model on the Replicate fake: 1 to 4 images.',
      inputs: INPUTS,
      price_multipliers: ['num_outputs'],
      engine: {
        engine: 'replicate',
        baseUrl: fake.url,
        upstreamModel: 'fake/ok',
        tokenEnv: 'REPLICATE_API_TOKEN',
        input: { output_format: 'png' },
        pollIntervalMs: 50,
        outputOrigins: [fake.cdnUrl],
      },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: LAPTOP })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (401|403|404|409|422)/.test(message.text())) pageErrors.push(message.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await admin?.close();
    await h?.close();
    await fake?.close();
  });
  afterEach(() => expect(pageErrors).toEqual([]));

  it('shows each input as the control its schema calls for', async () => {
    const email = testEmail('inputs');
    await page.goto(`${h.url}/dashboard/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const accountId = (await h.running.databases.auth.query('SELECT account_id FROM users WHERE email = $1', [email]))[0].account_id as string;
    key = (await h.running.provisioning.createKey(accountId, 'studio')).key;

    // The catalogue reaches the gateway within seconds.
    for (let i = 0; i < 100; i++) {
      const models = (await http(h.url, 'GET', '/api/v1/models', { key })).body.data as Array<{ id: string; available: boolean }>;
      if (models.some((m) => m.id === 'fox-flux' && m.available)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.goto(`${h.url}/dashboard/playground?model=fox-flux`);
    const form = page.getByTestId('input-form');
    await form.waitFor();
    const field = (name: string) => form.locator(`[data-input="${name}"]`);
    await expect(field('aspect_ratio').locator('select option').allTextContents()).resolves.toEqual(['1:1 (default)', '16:9', '9:16', '4:3']);
    await expect(field('num_outputs').locator('input[type="range"]').count()).resolves.toBe(1);
    await expect(field('output_quality').locator('input[type="range"]').count()).resolves.toBe(1);
    await expect(field('seed').locator('input[type="range"]').count()).resolves.toBe(0); // too wide a range for a slider
    await expect(field('seed').locator('input[type="number"]').getAttribute('max')).resolves.toBe('2147483647');
    await expect(field('go_fast').getByRole('checkbox').isChecked()).resolves.toBe(true);
    await expect(field('image_prompt').locator('input[type="url"]').count()).resolves.toBe(1);
    await field('num_outputs').getByText('Number of images (the price is per image). Whole number, 1 to 4; default 1.').waitFor();
    await screenshots(page, '01-playground-form', { dir: SHOTS });
  });

  it('names a refused input at its field, and sends nothing the customer left alone', async () => {
    await page.getByLabel('Prompt', { exact: true }).fill('a red fox');
    await page.getByLabel('Seed', { exact: true }).fill('3000000000');
    await page.getByRole('button', { name: /^Generate/ }).click();
    const seed = page.locator('[data-input="seed"]');
    await seed.locator('.field-error').waitFor();
    expect(await seed.locator('.field-error').textContent()).toMatch(/2147483647/);
    await expect(page.getByLabel('Seed', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    const curl = (await page.getByTestId('curl').textContent()) ?? '';
    expect(curl).toContain('"input":{"seed":3000000000}');
    await screenshots(page, '02-playground-refused-input', { dir: SHOTS });
    expect(fake.creates()).toBe(0);
  });

  it('generates with the chosen inputs and shows every output, charged per image', async () => {
    await page.getByLabel('Seed', { exact: true }).fill('7');
    await page.getByLabel('Aspect ratio').selectOption('16:9');
    await page.getByLabel('Num outputs', { exact: true }).fill('3');
    // The price follows num_outputs (3 credits each), before and after.
    await page.getByRole('button', { name: 'Generate · 9 credits' }).click();
    const gallery = page.locator('.result .output-gallery');
    await gallery.waitFor({ timeout: 30_000 });
    await expect(gallery.locator('img').count()).resolves.toBe(3);
    await page.getByRole('img', { name: 'Output of “a red fox”, 3 of 3' }).waitFor();
    await expect(page.getByTestId('credits-charged').textContent()).resolves.toBe('9 credits');
    // The provider got the customer's values over the binding's static input.
    expect(fake.predictions[0].input).toMatchObject({ prompt: 'a red fox', seed: 7, aspect_ratio: '16:9', num_outputs: 3, output_format: 'png' });
    await screenshots(page, '03-playground-three-outputs', { dir: SHOTS });
  });

  it('uploads a file for a media input: the field holds its URL, and the provider is given that URL', async () => {
    await page.goto(`${h.url}/dashboard/playground?model=fox-flux`);
    const form = page.getByTestId('input-form');
    await form.waitFor();
    const media = form.locator('[data-input="image_prompt"]');
    // A file whose bytes are not what it says is refused at the field; nothing is kept.
    await media.locator('input[type="file"]').setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') });
    await media.locator('.field-error').waitFor();
    expect(await media.locator('.field-error').textContent()).toMatch(/^The file is not image\/png/);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2000, 5)]);
    await media.locator('input[type="file"]').setInputFiles({ name: 'fox.png', mimeType: 'image/png', buffer: png });
    const url = media.locator('input[type="url"]');
    for (let i = 0; i < 100 && !(await url.inputValue()).startsWith(`${h.url}/cdn/`); i++) await page.waitForTimeout(100);
    const uploaded = await url.inputValue();
    expect(uploaded).toMatch(new RegExp(`^${h.url}/cdn/[0-9a-f]{2}/[0-9a-f]{32}\\.png$`));
    expect(Buffer.from(await (await fetch(uploaded)).arrayBuffer())).toEqual(png);
    await screenshots(page, '04-playground-uploaded-file', { dir: SHOTS });
    await page.getByLabel('Prompt', { exact: true }).fill('the fox, as in this picture');
    const before = fake.predictions.length;
    await page.getByRole('button', { name: /^Generate/ }).click();
    await page.locator('.result').getByText('Generation completed.').waitFor({ timeout: 30_000 });
    expect(fake.predictions.slice(before).map((p) => p.input.image_prompt)).toEqual([uploaded]);
  });

  it('shows the input as applied, the metadata and every output on the generation page', async () => {
    const submitted = await http(h.url, 'POST', '/api/v1/generate', {
      key,
      body: { model: 'fox-flux', prompt: 'a fox in the snow', type: 'TEXT_TO_IMAGE', input: { num_outputs: 2, seed: 11 }, metadata: { order: 'A-1042', customer: 'studio' } },
    });
    expect(submitted.status).toBe(200);
    await page.goto(`${h.url}/dashboard/generations/${submitted.body.id}`);
    const input = page.getByTestId('generation-input');
    await input.waitFor();
    const text = (await input.textContent()) ?? '';
    for (const expected of ['num_outputs2', 'seed11', 'aspect_ratio1:1', 'go_fasttrue']) expect(text).toContain(expected);
    const metadata = (await page.getByTestId('generation-metadata').textContent()) ?? '';
    expect(metadata).toContain('orderA-1042');
    expect(metadata).toContain('customerstudio');
    await expect(page.getByTestId('generation-outputs').locator('li').count()).resolves.toBe(2);
    await expect(page.locator('.output-gallery img').count()).resolves.toBe(2);
    await screenshots(page, '05-generation-input-metadata', { dir: SHOTS });
  });
});
