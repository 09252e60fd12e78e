import type { GenerationType } from '@gen/contracts';
import type { ModelDefinitionInput } from '@gen/generation';
import { ASSETS, eventually, FakeCog, FakeFal, FakeOpenAiImages, FakeReplicate, http, LEAK, sanitisationProblems, startFakeCog, startFakeFal, startFakeOpenAiImages, startFakeReplicate } from '@gen/testing';
import { Client } from 'pg';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/**
 * Each provider adapter end to end in standalone: catalogue models bound to the provider fakes
 * (credentials from the environment the configuration was read from), driven over HTTP as a client
 * would. A generation through each adapter lands in our storage and is charged; an upstream failure
 * ends `failed` with a sanitised error and the credits back.
 */
describe('standalone: models bound to provider APIs', () => {
  let replicate: FakeReplicate;
  let fal: FakeFal;
  let cog: FakeCog;
  let openai: FakeOpenAiImages;
  let h: StandaloneHarness;
  const PRICE = 5;
  const timeouts = { connectMs: 500, requestMs: 1_000, totalMs: 4_000 };

  const model = (id: string, type: GenerationType, synchronous: boolean, engine: string, params: Record<string, unknown>): ModelDefinitionInput =>
    testModel({ id, name: `Provider model ${id}`, type, credits: PRICE, synchronous, engine, params: { ...params, timeouts, pollIntervalMs: 20 } });

  beforeAll(async () => {
    [replicate, fal, cog, openai] = await Promise.all([startFakeReplicate(), startFakeFal(), startFakeCog(), startFakeOpenAiImages()]);
    const viaReplicate = (name: string) => ({ baseUrl: replicate.url, upstreamModel: `fake/${name}`, tokenEnv: 'REPLICATE_API_TOKEN', outputOrigins: [replicate.cdnUrl] });
    const viaFal = (name: string) => ({ baseUrl: fal.url, upstreamModel: `fake-ai/${name}`, tokenEnv: 'FAL_KEY', outputOrigins: [fal.cdnUrl] });
    const viaCog = (scenario: string) => ({ baseUrl: cog.url, input: { scenario } });
    const viaOpenAi = (name: string) => ({ baseUrl: openai.url, upstreamModel: name, tokenEnv: 'OPENAI_API_KEY', input: { size: '1024x1024' } });
    h = await startStandaloneHarness(
      { REPLICATE_API_TOKEN: replicate.token, FAL_KEY: fal.key, OPENAI_API_KEY: openai.key },
      {
        models: [
          model('pixel-replicate-1', 'TEXT_TO_IMAGE', true, 'replicate', viaReplicate('ok')),
          model('pixel-replicate-fails', 'TEXT_TO_IMAGE', true, 'replicate', viaReplicate('fails')),
          model('pixel-replicate-nokey', 'TEXT_TO_IMAGE', true, 'replicate', { ...viaReplicate('ok'), tokenEnv: 'UNSET_REPLICATE_TOKEN' }),
          model('motion-fal-1', 'TEXT_TO_VIDEO', false, 'fal', viaFal('video')),
          model('pixel-fal-fails', 'TEXT_TO_IMAGE', true, 'fal', viaFal('fails-500')),
          model('pixel-cog-1', 'TEXT_TO_IMAGE', true, 'cog', viaCog('ok')),
          model('tone-cog-1', 'TEXT_TO_AUDIO', false, 'cog', viaCog('ok-audio')),
          model('pixel-cog-fails', 'TEXT_TO_IMAGE', true, 'cog', viaCog('fails')),
          model('pixel-openai-1', 'TEXT_TO_IMAGE', true, 'openai-images', viaOpenAi('gpt-image-1')),
          model('pixel-openai-refused', 'TEXT_TO_IMAGE', true, 'openai-images', viaOpenAi('fake-content-policy')),
        ],
      },
    );
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([replicate, fal, cog, openai].map((f) => f?.close()));
  });

  const credits = async (key: string) => (await http(h.url, 'GET', '/api/v1/credits', { key })).body;

  /** Waits until billing has settled every hold of the account (the event path is asynchronous). */
  const settled = (key: string) => eventually(() => credits(key), (balance) => balance.held === 0);

  /** Submits and, for an asynchronous model, reads the job until it is final. */
  async function generate(key: string, modelId: string, type: GenerationType) {
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: modelId, prompt: 'a lighthouse at dusk', type } });
    expect([200, 202]).toContain(res.status);
    let job = res.body;
    const deadline = Date.now() + 15_000;
    while (!['completed', 'failed'].includes(job.status) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      job = (await http(h.url, 'GET', `/api/v1/generations/${res.body.id}`, { key })).body;
    }
    return { job, text: res.text };
  }

  it.each<[string, GenerationType, keyof typeof ASSETS, string]>([
    ['pixel-replicate-1', 'TEXT_TO_IMAGE', 'png', 'image/png'],
    ['motion-fal-1', 'TEXT_TO_VIDEO', 'mp4', 'video/mp4'],
    ['pixel-cog-1', 'TEXT_TO_IMAGE', 'png', 'image/png'],
    ['tone-cog-1', 'TEXT_TO_AUDIO', 'wav', 'audio/wav'],
    ['pixel-openai-1', 'TEXT_TO_IMAGE', 'png', 'image/png'],
  ])('%s: the provider output is stored and served from our content host, and charged', async (modelId, type, asset, contentType) => {
    const { key } = await h.account('free', 100);
    const { job } = await generate(key, modelId, type);
    expect(job).toMatchObject({ status: 'completed', error: null, credits_charged: PRICE });
    expect(job.output_url.startsWith(`${h.url}/cdn/`)).toBe(true);
    const file = await fetch(job.output_url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe(contentType);
    expect(Buffer.from(await file.arrayBuffer()).equals(ASSETS[asset])).toBe(true);
    expect(await settled(key)).toMatchObject({ available: 100 - PRICE, held: 0 });
  });

  it('the upstream job was stored on our job (replicate: the prediction id)', async () => {
    const { key } = await h.account('free', 100);
    const { job } = await generate(key, 'pixel-replicate-1', 'TEXT_TO_IMAGE');
    const db = new Client({ connectionString: h.database.url });
    await db.connect();
    const { rows } = await db.query<{ upstream_ref: string }>('SELECT upstream_ref FROM generation.jobs WHERE id = $1', [job.id]).finally(() => db.end());
    const created = replicate.predictions.find((p) => `replicate:${p.id}` === rows[0].upstream_ref);
    expect(created).toBeDefined();
  });

  it.each<[string, GenerationType]>([
    ['pixel-replicate-fails', 'TEXT_TO_IMAGE'],
    ['pixel-fal-fails', 'TEXT_TO_IMAGE'],
    ['pixel-cog-fails', 'TEXT_TO_IMAGE'],
    ['pixel-openai-refused', 'TEXT_TO_IMAGE'],
  ])('%s: the upstream failure ends the job failed, sanitised, refunded', async (modelId, type) => {
    const { key } = await h.account('free', 100);
    const { job, text } = await generate(key, modelId, type);
    expect(job).toMatchObject({ status: 'failed', output_url: null, credits_charged: 0 });
    for (const secret of [replicate.token, fal.key, openai.key]) {
      expect(sanitisationProblems(job.error, { url: replicate.url, secret, leak: LEAK })).toEqual([]);
      expect(text).not.toContain(secret);
    }
    expect(job.error).toMatch(/refunded/);
    expect(await settled(key)).toMatchObject({ available: 100, held: 0 });
  });

  it('a synchronous upstream refusal answers failed with the hold already released: GET /credits right after agrees', async () => {
    const { key } = await h.account('free', 100);
    for (let attempt = 0; attempt < 5; attempt++) {
      const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-replicate-fails', prompt: 'a lighthouse at dusk', type: 'TEXT_TO_IMAGE' } });
      expect(res.body).toMatchObject({ status: 'failed', credits_charged: 0 });
      // Read once, at once: no waiting for billing's event.
      expect(await credits(key)).toMatchObject({ available: 100, held: 0 });
    }
  });

  it('a model whose credential is not configured is listed unavailable, in user-safe words, and refused at submit', async () => {
    const { key } = await h.account('free', 100);
    const { data } = (await http(h.url, 'GET', '/api/v1/models', { key })).body;
    const listed = data.find((m: { id: string }) => m.id === 'pixel-replicate-nokey');
    expect(listed).toMatchObject({ available: false });
    expect(listed.unavailable_reason).toMatch(/temporarily unavailable/);
    expect(listed.unavailable_reason).not.toMatch(/UNSET_REPLICATE_TOKEN|127\.0\.0\.1|tokenEnv/);
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-replicate-nokey', prompt: 'x', type: 'TEXT_TO_IMAGE' } });
    expect(res.status).toBe(422);
    expect(await credits(key)).toMatchObject({ available: 100, held: 0 });
  });
});
