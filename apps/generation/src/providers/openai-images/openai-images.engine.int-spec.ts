import { Logger } from '@nestjs/common';
import { ASSETS, FakeOpenAiImages, OpenAiImagesScenario, startFakeOpenAiImages } from '@gen/testing';
import { engineFailure, engineRequest } from '../test/engine-requests';
import type { Engine } from '../../ports/engine';
import { USER_MESSAGES } from '../common/upstream-failure';
import { openAiImagesEngineKind } from './openai-images.kind';

/** The openai-images adapter against a fake of the OpenAI Images API on 127.0.0.1. */
describe('openai-images engine', () => {
  let fake: FakeOpenAiImages;
  const engines: Engine[] = [];
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    fake = await startFakeOpenAiImages({ slowMs: 1_200 });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    expect(JSON.stringify(warn.mock.calls)).not.toContain(fake.key);
    warn.mockRestore();
    await Promise.all(engines.splice(0).map((e) => e.dispose?.() ?? Promise.resolve()));
  });

  const engine = (overrides: Record<string, unknown> = {}, key?: string) => {
    const settings = {
      baseUrl: fake.url,
      upstreamModel: 'gpt-image-1',
      tokenEnv: 'OPENAI_API_KEY',
      input: { size: '1024x1024', quality: 'low' },
      outputOrigins: [fake.cdnUrl],
      timeouts: { connectMs: 500, requestMs: 1_000, totalMs: 5_000 },
      ...overrides,
    };
    const problems: string[] = [];
    openAiImagesEngineKind.validate(settings, 'binding', problems);
    expect(problems).toEqual([]);
    const created = openAiImagesEngineKind.create('pixel-openai-1', settings, {
      env: (name) => (name === 'OPENAI_API_KEY' ? (key ?? fake.key) : undefined),
      allowPrivateNetworks: true,
    });
    engines.push(created);
    return created;
  };
  const model = (name: OpenAiImagesScenario, overrides: Record<string, unknown> = {}) => engine({ upstreamModel: name, ...overrides });
  const fail = (promise: Promise<unknown>) => engineFailure(promise, { url: fake.url, secret: fake.key });
  const calls = () => fake.calls('POST', /^\/v1\/images\/generations$/);

  it('validate: model and n are the engine\'s own, not static inputs; an inline key is refused', () => {
    const problems = (settings: Record<string, unknown>) => {
      const found: string[] = [];
      openAiImagesEngineKind.validate(settings, 'models[3].engine', found);
      return found.join('\n');
    };
    expect(problems({ upstreamModel: 'gpt-image-1', tokenEnv: 'OPENAI_API_KEY' })).toBe('');
    expect(problems({ upstreamModel: 'dall-e-3', baseUrl: 'http://localai.svc:8080' })).toBe(''); // a compatible server without a key
    const reserved = problems({ upstreamModel: 'gpt-image-1', input: { n: 2, model: 'x' } });
    expect(reserved).toMatch(/models\[3\]\.engine\.input\.model is set by the engine itself/);
    expect(reserved).toMatch(/models\[3\]\.engine\.input\.n is set by the engine itself/);
    expect(problems({ upstreamModel: 'gpt-image-1', apiKey: 'sk-123' })).toMatch(/models\[3\]\.engine\.apiKey: a credential is never stored/);
  });

  it('generates as documented: POST /v1/images/generations {model, prompt, n: 1, ...input}, b64_json decoded', async () => {
    const request = engineRequest();
    const [output] = await engine().generate(request);
    expect(output).toEqual({ data: ASSETS.png, contentType: 'image/png', extension: 'png' });
    const [call] = calls();
    expect(call.headers.authorization).toBe(`Bearer ${fake.key}`);
    expect(call.headers['content-type']).toBe('application/json');
    expect(JSON.parse(call.body)).toEqual({ size: '1024x1024', quality: 'low', prompt: 'a red kite', model: 'gpt-image-1', n: 1 });
    // Synchronous: no upstream job to store.
    expect(request.saved).toEqual([]);
  });

  it("the customer's n (through inputMap) asks for several images, and every item of data[] is kept", async () => {
    const outputs = await engine({ inputMap: { num_outputs: 'n' } }).generate(engineRequest({ input: { num_outputs: 3, quality: 'high' } }));
    expect(JSON.parse(calls().at(-1)!.body)).toEqual({ size: '1024x1024', quality: 'high', prompt: 'a red kite', model: 'gpt-image-1', n: 3 });
    expect(outputs).toHaveLength(3);
    for (const output of outputs) expect(output).toEqual({ data: ASSETS.png, contentType: 'image/png', extension: 'png' });
    const urls = await model('dall-e-3', { inputMap: { num_outputs: 'n' } }).generate(engineRequest({ input: { num_outputs: 2 } }));
    expect(urls.map((o) => o.data?.equals(ASSETS.png))).toEqual([true, true]);
  });

  it('a dall-e model answering a URL: downloaded from the allowed origin, without the key', async () => {
    const [output] = await model('dall-e-3', { input: { size: '1024x1024' } }).generate(engineRequest());
    expect(output.data?.equals(ASSETS.png)).toBe(true);
    const [download] = fake.calls('GET', /^\/files\//, 'cdn');
    expect(download.headers.authorization).toBeUndefined();
  });

  it('response_format b64_json from the static inputs is sent as is', async () => {
    await model('dall-e-3', { input: { response_format: 'b64_json' } }).generate(engineRequest());
    expect(JSON.parse(calls()[0].body).response_format).toBe('b64_json');
    expect(fake.calls('GET', /./, 'cdn')).toHaveLength(0);
  });

  describe('failures: a fixed, sanitised message', () => {
    it('401: the key is wrong (OpenAI quotes part of it back; none of it reaches the user or the log)', async () => {
      expect((await fail(engine({}, 'sk-wrong-key-9999').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unauthorized);
      expect(calls()).toHaveLength(1);
    });

    it('400 content_policy_violation: refused', async () => {
      expect((await fail(model('fake-content-policy').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.refused);
    });

    it('429 with Retry-After: retried after the wait (nothing was generated), one image made', async () => {
      const before = fake.generated();
      expect((await model('fake-rate-limited').generate(engineRequest()))[0].contentType).toBe('image/png');
      const [refused, accepted] = calls();
      expect(accepted.at - refused.at).toBeGreaterThanOrEqual(950);
      expect(fake.generated() - before).toBe(1);
    });

    it('503 overloaded: retried', async () => {
      expect((await model('fake-overloaded').generate(engineRequest()))[0].contentType).toBe('image/png');
      expect(calls()).toHaveLength(2);
    });

    it('500: not repeated (it may have been generated and billed)', async () => {
      expect((await fail(model('fake-server-error', { retries: 3 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unavailable);
      expect(calls()).toHaveLength(1);
    });

    it('a slow answer past requestMs: timeout, not repeated', async () => {
      const slow = model('fake-slow', { retries: 3, timeouts: { requestMs: 300, totalMs: 3_000 } });
      expect((await fail(slow.generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.timeout);
      expect(calls()).toHaveLength(1);
    });

    it.each<[OpenAiImagesScenario]>([['fake-empty'], ['fake-html']])('malformed answer: %s', async (name) => {
      expect((await fail(model(name).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.malformed);
    });

    it('an answer that is not an image, or a URL that is gone', async () => {
      expect((await fail(model('fake-not-image').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_invalid);
      expect((await fail(model('fake-gone').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_unavailable);
    });

    it('the runner aborting mid-call rethrows its reason', async () => {
      const controller = new AbortController();
      const pending = model('fake-slow').generate(engineRequest({ signal: controller.signal }));
      while (calls().length === 0) await new Promise((r) => setTimeout(r, 5));
      controller.abort(new Error('shutting down'));
      await expect(pending).rejects.toThrow('shutting down');
    });
  });
});
