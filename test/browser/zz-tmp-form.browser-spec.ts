import { join } from 'node:path';
import { launchChromium, screenshots, ARTIFACTS_ROOT } from '../support/browser';
import { TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { startStandaloneHarness } from '../support/standalone-harness';

const DASHBOARD_DIR = join(__dirname, '..', '..', 'dist', 'apps', 'dashboard');
it('looks', async () => {
  const h = await startStandaloneHarness({ DASHBOARD_DIR });
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.route('**/dashboard/api/models', async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    for (const m of body.data) if (m.id === 'pixel-flux-1') {
      m.price_multipliers = ['num_outputs'];
      m.inputs = { type: 'object', additionalProperties: false, properties: {
        aspect_ratio: { type: 'string', enum: ['1:1', '16:9', '9:16', '4:3'], default: '1:1', description: 'Aspect ratio of the images.' },
        num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1, description: 'Number of images (the price is per image).' },
        output_quality: { type: 'integer', minimum: 0, maximum: 100, default: 80, description: 'Quality of webp and jpg images.' },
        guidance: { type: 'number', minimum: 0, maximum: 1, default: 0.5, description: 'How closely it follows the prompt.' },
        seed: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'Random seed.' },
        go_fast: { type: 'boolean', default: true, description: 'Faster run.' },
        negative_prompt: { type: 'string', description: 'What should not appear.' },
        image_prompt: { type: 'string', format: 'uri', description: 'An image that guides the composition.' },
      } };
    }
    await route.fulfill({ response: res, json: body });
  });
  await page.goto(`${h.url}/dashboard/sign-up`);
  await page.getByLabel('Email').fill(testEmail('tmp'));
  await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.goto(`${h.url}/dashboard/settings/keys`);
  await page.getByLabel('Name').fill('studio');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('button', { name: 'I have saved it' }).click();
  await page.goto(`${h.url}/dashboard/playground?model=pixel-flux-1`);
  await page.getByTestId('input-form').waitFor();
  await page.getByLabel('Seed', { exact: true }).fill('7');
  await page.getByLabel('Num outputs', { exact: true }).fill('3');
  await screenshots(page, 'tmp-form', { dir: join(ARTIFACTS_ROOT, 'tmp') });
  await browser.close();
  await h.close();
});
