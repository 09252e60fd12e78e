import { Logger } from '@nestjs/common';
import { ASSETS, CogScenario, FakeCog, startFakeCog } from '@gen/testing';
import { engineFailure, engineRequest, itReturnsEveryOutputShape } from '../test/engine-requests';
import type { Engine } from '../../ports/engine';
import { USER_MESSAGES } from '../common/upstream-failure';
import { predictionId } from './cog.engine';
import { cogEngineKind } from './cog.kind';

/** The cog adapter against a fake Cog container (its documented HTTP API) on 127.0.0.1. */
describe('cog engine', () => {
  let fake: FakeCog;
  let guarded: FakeCog;
  const engines: Engine[] = [];
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    fake = await startFakeCog();
    guarded = await startFakeCog({ token: 'proxy-token-789' });
  });
  afterAll(async () => {
    await fake.close();
    await guarded.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    warn.mockRestore();
    await Promise.all(engines.splice(0).map((e) => e.dispose?.() ?? Promise.resolve()));
  });

  const engine = (overrides: Record<string, unknown> = {}, options: { env?: Record<string, string> } = {}) => {
    const settings = {
      baseUrl: fake.url,
      input: { scenario: 'ok' },
      outputOrigins: [fake.cdnUrl],
      pollIntervalMs: 20,
      retries: 3,
      timeouts: { connectMs: 500, requestMs: 1_000, totalMs: 6_000 },
      ...overrides,
    };
    const problems: string[] = [];
    cogEngineKind.validate(settings, 'binding', problems);
    expect(problems).toEqual([]);
    const created = cogEngineKind.create('pixel-cog-1', settings, { env: (name) => options.env?.[name], allowPrivateNetworks: true });
    engines.push(created);
    return created;
  };
  const scenario = (name: CogScenario, overrides: Record<string, unknown> = {}, extraInput: Record<string, unknown> = {}) =>
    engine({ input: { scenario: name, ...extraInput }, ...overrides });
  const fail = (promise: Promise<unknown>, secret = 'none') => engineFailure(promise, { url: fake.url, secret });
  const puts = () => fake.calls('PUT', /^\/predictions\/[^/]+$/);
  const cancels = () => fake.calls('POST', /^\/predictions\/[^/]+\/cancel$/);
  const startAsync = (id: string, input: Record<string, unknown>) =>
    fetch(`${fake.url}/predictions/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json', prefer: 'respond-async' }, body: JSON.stringify({ input }) });

  it('validate: baseUrl is required, upstreamModel refused (a container serves one model), tokenEnv optional', () => {
    const problems = (settings: Record<string, unknown>) => {
      const found: string[] = [];
      cogEngineKind.validate(settings, 'models[2].engine', found);
      return found.join('\n');
    };
    expect(problems({ baseUrl: 'http://flux.gpu.svc.cluster.local:5000' })).toBe('');
    expect(problems({})).toMatch(/models\[2\]\.engine\.baseUrl must be an http\(s\) URL/);
    expect(problems({ baseUrl: 'http://cog:5000', upstreamModel: 'x/y' })).toMatch(/\.upstreamModel: this engine serves one model/);
    expect(problems({ baseUrl: 'http://cog:5000', password: 'x' })).toMatch(/\.password: a credential is never stored/);
  });

  it('makes the prediction with PUT /predictions/{id}, the id stored before the call, and decodes the data URL', async () => {
    const request = engineRequest();
    const [output] = await engine({ input: { scenario: 'ok', num_inference_steps: 4 } }).generate(request);
    expect(output).toEqual({ data: ASSETS.png, contentType: 'image/png', extension: 'png' });

    const id = predictionId(request.jobId);
    expect(id).toMatch(/^[a-z2-7]{26}$/); // Cog's recommended shape
    const [put] = puts();
    expect(put.path).toBe(`/predictions/${id}`);
    expect(put.headers['content-type']).toBe('application/json');
    expect(put.headers.prefer).toBeUndefined(); // synchronous
    expect(put.headers.authorization).toBeUndefined(); // no tokenEnv, no credential
    expect(JSON.parse(put.body)).toEqual({ input: { scenario: 'ok', num_inference_steps: 4, prompt: 'a red kite' } });
    expect(request.saved).toEqual([{ ref: `cog:${id}`, at: expect.any(Number) }]);
    expect(request.saved[0].at).toBeLessThanOrEqual(put.at);
    expect(fake.started.at(-1)).toMatchObject({ id, status: 'succeeded', endedBy: 'finished' });
  });

  it('sends a Bearer token to a proxy in front of the container when tokenEnv names one', async () => {
    const e = engine({ baseUrl: guarded.url, tokenEnv: 'COG_PROXY_TOKEN' }, { env: { COG_PROXY_TOKEN: 'proxy-token-789' } });
    expect((await e.generate(engineRequest()))[0].contentType).toBe('image/png');
    expect(guarded.requests.at(-1)?.headers.authorization).toBe('Bearer proxy-token-789');
    const wrong = engine({ baseUrl: guarded.url, tokenEnv: 'COG_PROXY_TOKEN' }, { env: { COG_PROXY_TOKEN: 'nope' } });
    expect((await fail(wrong.generate(engineRequest()), 'nope')).userMessage).toBe(USER_MESSAGES.unauthorized);
  });

  itReturnsEveryOutputShape<CogScenario>(scenario, [
    ['ok', 'TEXT_TO_IMAGE', 'png', {}],
    ['ok-url', 'TEXT_TO_IMAGE', 'png', {}],
    ['ok-list', 'TEXT_TO_IMAGE', 'png', {}],
    ['ok-video', 'TEXT_TO_VIDEO', 'mp4', {}],
    ['ok-audio', 'TEXT_TO_AUDIO', 'wav', {}],
    ['ok-3d', 'TEXT_TO_3D', 'glb', {}],
    ['object-output', 'TEXT_TO_IMAGE', 'png', { outputPath: 'image' }],
  ]);

  it('every slot busy (409): asked again until the container is free, without using up retries', async () => {
    const first = scenario('ok', { retries: 0 }, { duration_ms: 400 }).generate(engineRequest());
    while (fake.started.filter((p) => p.status === 'processing').length === 0) await new Promise((r) => setTimeout(r, 5));
    const second = scenario('ok', { retries: 0 }).generate(engineRequest());
    const [[a], [b]] = await Promise.all([first, second]);
    expect(a.contentType).toBe('image/png');
    expect(b.contentType).toBe('image/png');
    // The first, several refused while it ran (more than the retries allow), the accepted one.
    expect(puts().length).toBeGreaterThanOrEqual(4);
  });

  it('429 with Retry-After (from a proxy in front of the container): asked again after the wait', async () => {
    const [output] = await scenario('proxy-429').generate(engineRequest());
    expect(output.contentType).toBe('image/png');
    const [refused, accepted] = puts();
    expect(accepted.at - refused.at).toBeGreaterThanOrEqual(950);
    expect(fake.started.filter((p) => p.scenario === 'proxy-429')).toHaveLength(1);
  });

  it('attaches to a prediction still running under the stored id (202, nothing started) until it ends', async () => {
    const request = engineRequest();
    const id = predictionId(request.jobId);
    expect((await startAsync(id, { scenario: 'ok', duration_ms: 300, prompt: 'a red kite' })).status).toBe(202);
    const startedBefore = fake.started.length;
    const attached = engineRequest({ upstreamRef: `cog:${id}` });
    const [output] = await scenario('ok').generate(attached);
    expect(output.contentType).toBe('image/png');
    expect(attached.saved).toEqual([]);
    // Every PUT while it ran was answered with its state; Cog forgets a finished prediction, so the
    // PUT after its end ran it once more (on the operator's own GPU: docs/operations/providers.md).
    const answeredWhileRunning = puts().length - 1;
    expect(answeredWhileRunning).toBeGreaterThanOrEqual(1);
    expect(fake.started.length - startedBefore).toBe(1);
  });

  describe('failures: a fixed, sanitised message', () => {
    it('the prediction fails (200 with status failed; the error goes to the log only)', async () => {
      expect((await fail(scenario('fails').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.generation_failed);
      expect(JSON.stringify(warn.mock.calls)).toContain('CUDA out of memory');
    });

    it.each<[CogScenario]>([['no-output'], ['object-output'], ['bad-data-uri']])('malformed output: %s', async (name) => {
      expect((await fail(scenario(name).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.malformed);
    });

    it('a data URL that is not an image, or too large', async () => {
      expect((await fail(scenario('html-output').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_invalid);
      expect((await fail(scenario('ok', { maxOutputBytes: 16 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_invalid);
    });

    it('nothing listens at the base URL: unavailable after retries', async () => {
      const gone = await startFakeCog();
      await gone.close();
      expect((await fail(engine({ baseUrl: gone.url, retries: 1 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unavailable);
    });
  });

  describe('cancel', () => {
    it('on our deadline: timeout, and the prediction is cancelled', async () => {
      const error = await fail(scenario('never-finishes', { timeouts: { requestMs: 300, totalMs: 600 } }).generate(engineRequest()));
      expect(error.userMessage).toBe(USER_MESSAGES.timeout);
      const last = fake.started.at(-1);
      expect(last?.status).toBe('canceled');
      expect(cancels().map((c) => c.path)).toEqual([`/predictions/${last?.id}/cancel`]);
    });

    it('when the runner aborts, we send no cancel (Cog itself cancels a sync prediction whose connection closed)', async () => {
      const controller = new AbortController();
      const pending = scenario('never-finishes').generate(engineRequest({ signal: controller.signal }));
      while (puts().length === 0) await new Promise((r) => setTimeout(r, 5));
      controller.abort(new Error('lease lost'));
      await expect(pending).rejects.toThrow('lease lost');
      expect(cancels()).toHaveLength(0);
      while (fake.started.at(-1)?.status === 'processing') await new Promise((r) => setTimeout(r, 5));
      expect(fake.started.at(-1)?.endedBy).toBe('disconnect');
    });

    it('cancel(ref) cancels a running prediction by its id; false when Cog does not know it', async () => {
      await startAsync('wjx3whax6rf4vphkegkhcvpv6a', { scenario: 'never-finishes' });
      await expect(engine().cancel?.('cog:wjx3whax6rf4vphkegkhcvpv6a')).resolves.toBe(true);
      expect(fake.started.at(-1)).toMatchObject({ status: 'canceled', endedBy: 'cancel' });
      await expect(engine().cancel?.('cog:wjx3whax6rf4vphkegkhcvpv6a')).resolves.toBe(false);
    });
  });
});
