import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { WaveFile } from 'wavefile';
import { CatalogueAdminModule, CatalogueAdminService } from '@gen/generation';
import { http } from '@gen/testing';
import { GateEngine } from '../support/gate-engine';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value (or the deadline passes); returns it and how long it took. */
async function within<T>(ms: number, check: () => Promise<T | undefined>): Promise<{ value: T; elapsedMs: number }> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return { value, elapsedMs: Date.now() - started };
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(100);
  }
}

async function finished(h: StandaloneHarness, key: string, id: string): Promise<any> {
  return (
    await within(15_000, async () => {
      const record = (await http(h.url, 'GET', `/api/v1/generations/${id}`, { key })).body;
      return record.status === 'completed' || record.status === 'failed' ? record : undefined;
    })
  ).value;
}

/**
 * The catalogue as data, end to end in standalone: operators change it (through the same service
 * the CLI uses, on its own connection) while the service runs, and the API follows within seconds.
 */
describe('model catalogue (standalone)', () => {
  let h: StandaloneHarness;
  let adminContext: INestApplicationContext;
  let admin: CatalogueAdminService;
  const gate = new GateEngine('gate');

  beforeAll(async () => {
    h = await startStandaloneHarness({}, { engines: { gate } });
    adminContext = await NestFactory.createApplicationContext(CatalogueAdminModule.register(h.running.databases.generation, { engines: { gate } }), { logger: false });
    admin = adminContext.get(CatalogueAdminService);
  });
  afterAll(async () => {
    gate.open();
    await adminContext?.close();
    await h?.close();
  });

  const models = async (key: string) => (await http(h.url, 'GET', '/api/v1/models', { key })).body.data as any[];
  const credits = async (key: string) => (await http(h.url, 'GET', '/api/v1/credits', { key })).body;

  it('lists every model with availability for the caller, and why not', async () => {
    const { key } = await h.account('free', 100);
    const listed = await models(key);
    expect(listed.map((m) => m.id).sort()).toEqual(['mesh-smith-1', 'motion-lite-1', 'pixel-flux-1', 'pixel-flux-1-hd', 'tone-weaver-1', 'voice-1']);
    expect(listed.find((m) => m.id === 'voice-1')).toEqual({
      id: 'voice-1',
      name: 'Demo: robotic speech of the prompt, espeak-ng (not an AI model)',
      type: 'TEXT_TO_AUDIO',
      credits: 3,
      minimum_credits: 3,
      synchronous: false,
      min_plan: 'free',
      provider: 'demo',
      description: expect.stringMatching(/^Built-in demo engine, not an AI model: /),
      available: true,
      unavailable_reason: null,
      inputs: { type: 'object', properties: {}, additionalProperties: false },
      price_multipliers: [],
      pricing: '3 credits per generation',
    });
    const hd = listed.find((m) => m.id === 'pixel-flux-1-hd');
    expect(hd.available).toBe(false);
    expect(hd.unavailable_reason).toBe('Needs the pro plan or above; this account is on free.');
  });

  it('voice-1 speaks the prompt: a WAV whose length follows the prompt, charged its price', async () => {
    const { key } = await h.account('free', 100);
    const durations: number[] = [];
    for (const prompt of ['Hello.', 'Hello there. This is the generation service, reading a much longer prompt aloud, word by word, until the end.']) {
      const submitted = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'voice-1', prompt, type: 'TEXT_TO_AUDIO' } });
      expect(submitted.status).toBe(202);
      const record = await finished(h, key, submitted.body.id);
      expect(record).toMatchObject({ status: 'completed', credits_charged: 3, error: null });
      const file = await fetch(record.output_url);
      expect(file.headers.get('content-type')).toBe('audio/wav');
      const wav = new WaveFile(Buffer.from(await file.arrayBuffer()));
      const samples = wav.getSamples(false, Int16Array) as unknown as Int16Array;
      durations.push(samples.length / (wav.fmt as { sampleRate: number }).sampleRate);
    }
    expect(durations[1]).toBeGreaterThan(durations[0] * 4);
    expect((await credits(key)).available).toBe(94);
  });

  it('a model added while the service runs is served within 5 s and charged its price', async () => {
    const { key } = await h.account('pro', 100);
    await admin.add({
      id: 'quick-image-1',
      name: 'Quick image',
      type: 'TEXT_TO_IMAGE',
      credits: 7,
      minimum_credits: 7,
      synchronous: true,
      min_plan: 'free',
      engine: { engine: 'instant' },
    });
    const seen = await within(5_000, async () => (await models(key)).find((m) => m.id === 'quick-image-1'));
    expect(seen.value).toMatchObject({ credits: 7, available: true });
    const generated = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'quick-image-1', prompt: 'a fox', type: 'TEXT_TO_IMAGE' } });
    expect(generated.status).toBe(200);
    expect(generated.body).toMatchObject({ status: 'completed', credits_charged: 7 });
  });

  it('a price change applies to new submits only: a running job keeps the amount held at its submit', async () => {
    const { key } = await h.account('pro', 100);
    await admin.add({
      id: 'gated-audio-1',
      name: 'Gated audio',
      type: 'TEXT_TO_AUDIO',
      credits: 10,
      minimum_credits: 10,
      synchronous: false,
      min_plan: 'free',
      engine: { engine: 'gate' },
    });
    await within(5_000, async () => (await models(key)).find((m) => m.id === 'gated-audio-1'));
    const before = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'gated-audio-1', prompt: 'old price', type: 'TEXT_TO_AUDIO' } });
    expect(before.status).toBe(202);
    expect((await credits(key)).held).toBe(10);

    await admin.update('gated-audio-1', { credits: 25, minimum_credits: 25 });
    const seen = await within(5_000, async () => (await models(key)).find((m) => m.id === 'gated-audio-1' && m.credits === 25));
    expect(seen.elapsedMs).toBeLessThan(5_000);
    const after = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'gated-audio-1', prompt: 'new price', type: 'TEXT_TO_AUDIO' } });
    expect(after.status).toBe(202);
    expect((await credits(key)).held).toBe(35);

    gate.open();
    expect((await finished(h, key, before.body.id)).credits_charged).toBe(10);
    expect((await finished(h, key, after.body.id)).credits_charged).toBe(25);
    const settled = await within(10_000, async () => {
      const balance = await credits(key);
      return balance.held === 0 ? balance : undefined;
    });
    expect(settled.value.available).toBe(100 - 10 - 25);
    gate.close();
  });

  it('a disabled model is refused with 422 and listed unavailable; enabled again, it works', async () => {
    const { key } = await h.account('pro', 100);
    await admin.setStatus('pixel-flux-1', 'disabled');
    try {
      const listed = await within(5_000, async () => (await models(key)).find((m) => m.id === 'pixel-flux-1' && !m.available));
      expect(listed.value.unavailable_reason).toBe('The operator has disabled this model.');
      const refused = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'a fox', type: 'TEXT_TO_IMAGE' } });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({
        code: 'validation_error',
        message: 'model: "pixel-flux-1" is not available: The operator has disabled this model.',
      });
      expect(await credits(key)).toMatchObject({ available: 100, held: 0 });
    } finally {
      await admin.setStatus('pixel-flux-1', 'active');
    }
    await within(5_000, async () => (await models(key)).find((m) => m.id === 'pixel-flux-1' && m.available));
    const ok = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'a fox', type: 'TEXT_TO_IMAGE' } });
    expect(ok.status).toBe(200);
  });
});

describe('voice-1 where espeak-ng is missing (standalone)', () => {
  let h: StandaloneHarness;
  beforeAll(async () => {
    h = await startStandaloneHarness({ ESPEAK_NG_PATH: '/nonexistent/espeak-ng' });
  });
  afterAll(() => h?.close());

  it('is listed unavailable with the reason, and a submit is a 422 saying how to install it; nothing is charged', async () => {
    const { key } = await h.account('free', 50);
    const voice = (await http(h.url, 'GET', '/api/v1/models', { key })).body.data.find((m: any) => m.id === 'voice-1');
    expect(voice.available).toBe(false);
    expect(voice.unavailable_reason).toContain('apt-get install espeak-ng');
    const refused = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'voice-1', prompt: 'hello', type: 'TEXT_TO_AUDIO' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('validation_error');
    expect(refused.body.error.message).toContain('espeak-ng');
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body).toMatchObject({ available: 50, held: 0 });
  });
});
