import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { GENERATION_TYPES } from '@gen/contracts';
import { CatalogueAdminModule, CatalogueAdminService, engineKinds, parseCatalogueFile } from '@gen/generation';
import { http } from '@gen/testing';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const ROOT = join(__dirname, '..', '..');
const CREDENTIAL_MISSING = 'This model is temporarily unavailable: its provider credential is not configured on this server.';

/** The starter catalogues in the repository, as `models sync --file` reads them. */
const FILES = {
  replicate: { token: 'REPLICATE_API_TOKEN', types: ['TEXT_TO_IMAGE', 'TEXT_TO_VIDEO', 'TEXT_TO_AUDIO'] },
  fal: { token: 'FAL_KEY', types: ['TEXT_TO_IMAGE', 'TEXT_TO_VIDEO', 'TEXT_TO_AUDIO', 'TEXT_TO_3D'] },
  openai: { token: 'OPENAI_API_KEY', types: ['TEXT_TO_IMAGE'] },
} as const;
type Provider = keyof typeof FILES;
const read = (provider: Provider): { models: Array<Record<string, any>> } => JSON.parse(readFileSync(join(ROOT, 'catalogues', `${provider}.json`), 'utf8'));

describe('starter catalogues (catalogues/*.json)', () => {
  it.each(Object.keys(FILES) as Provider[])('%s.json passes the validation models sync applies, one provider, its token, every type it offers', (provider) => {
    const file = read(provider);
    const problems: string[] = [];
    const models = parseCatalogueFile(file, engineKinds(), problems);
    expect(problems).toEqual([]);
    expect(models.length).toBe(file.models.length);
    for (const model of models) {
      expect({ id: model.id, provider: model.provider, token: model.params.tokenEnv }).toEqual({ id: model.id, provider, token: FILES[provider].token });
      expect(model.description.length).toBeGreaterThan(40);
      expect(model.name).not.toMatch(/demo/i);
    }
    // Each model declares the inputs customers may set (its provider's schema, in the subset `inputs` supports).
    for (const entry of file.models) expect(Object.keys(entry.inputs.properties).length).toBeGreaterThan(0);
    const types = new Set(models.map((m) => m.type));
    expect(GENERATION_TYPES.filter((t) => types.has(t))).toEqual(FILES[provider].types);
    // A fast and a quality image model: the cheaper one first.
    const images = models.filter((m) => m.type === 'TEXT_TO_IMAGE');
    expect(images.length).toBeGreaterThanOrEqual(2);
    expect(images[0].credits).toBeLessThan(images[1].credits);
  });
});

/** What an operator does: `models sync --file catalogues/<provider>.json`, then the token on the service. */
describe('models sync of a starter catalogue on standalone', () => {
  const harnesses: StandaloneHarness[] = [];
  const contexts: INestApplicationContext[] = [];
  afterAll(async () => {
    for (const c of contexts) await c.close();
    for (const h of harnesses) await h.close();
  });

  const start = async (env: Record<string, string>) => {
    const h = await startStandaloneHarness(env);
    harnesses.push(h);
    const context = await NestFactory.createApplicationContext(CatalogueAdminModule.register(h.running.databases.generation), { logger: false });
    contexts.push(context);
    return { h, admin: context.get(CatalogueAdminService) };
  };
  const listed = async (h: StandaloneHarness) => {
    const { key } = await h.account('pro', 100);
    // The catalogue reaches the gateway within about 3 s (generation re-reads it every second, the gateway caches it for 2 s).
    return async (ids: string[]) => {
      for (let i = 0; ; i++) {
        const models = (await http(h.url, 'GET', '/api/v1/models', { key })).body.data as Array<Record<string, any>>;
        if (ids.every((id) => models.some((m) => m.id === id)) || i > 60) return models;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
  };

  it('lists the provider models unavailable until the token is set, and disables the demos', async () => {
    const { h, admin } = await start({});
    const file = read('replicate');
    const ids = file.models.map((m) => m.id);
    const result = await admin.sync(file);
    expect(result.added.sort()).toEqual([...ids].sort());
    expect(result.disabled.sort()).toEqual(['mesh-smith-1', 'motion-lite-1', 'pixel-flux-1', 'pixel-flux-1-hd', 'tone-weaver-1', 'voice-1']);
    const models = await (await listed(h))(ids);
    for (const id of ids) {
      expect(models.find((m) => m.id === id)).toMatchObject({ provider: 'replicate', available: false, unavailable_reason: CREDENTIAL_MISSING });
    }
    expect(models.find((m) => m.id === 'pixel-flux-1')).toMatchObject({ provider: 'demo', available: false, unavailable_reason: 'The operator has disabled this model.' });
    expect((await admin.sync(file)).unchanged.sort()).toEqual([...ids].sort()); // a second sync changes nothing
  });

  it('with each provider token set, every model of its file is available', async () => {
    const { h, admin } = await start({ REPLICATE_API_TOKEN: 'r8_test', FAL_KEY: 'fal-test', OPENAI_API_KEY: 'sk-test' });
    const all = (Object.keys(FILES) as Provider[]).flatMap((p) => read(p).models);
    await admin.sync({ models: all });
    const models = await (await listed(h))(all.map((m) => m.id));
    for (const entry of all) {
      expect(models.find((m) => m.id === entry.id)).toMatchObject({
        id: entry.id,
        credits: entry.credits,
        description: entry.description,
        inputs: entry.inputs,
        price_multipliers: entry.price_multipliers ?? [],
        available: true,
        unavailable_reason: null,
      });
    }
  });
});
