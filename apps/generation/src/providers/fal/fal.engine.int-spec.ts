import { Logger } from '@nestjs/common';
import { ASSETS, FakeFal, FalScenario, startFakeFal } from '@gen/testing';
import { engineFailure, engineRequest, itReturnsEveryOutputShape } from '../test/engine-requests';
import type { Engine } from '../../ports/engine';
import { USER_MESSAGES } from '../common/upstream-failure';
import { falEngineKind } from './fal.kind';

/** The fal adapter against a fake of fal's documented queue API on 127.0.0.1. */
describe('fal engine', () => {
  let fake: FakeFal;
  const engines: Engine[] = [];
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    fake = await startFakeFal({ slowMs: 1_200 });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    expect(JSON.stringify(warn.mock.calls)).not.toContain('fal-key-secret');
    warn.mockRestore();
    await Promise.all(engines.splice(0).map((e) => e.dispose?.() ?? Promise.resolve()));
  });

  const binding = (overrides: Record<string, unknown> = {}) => ({
    baseUrl: fake.url,
    upstreamModel: 'fake-ai/image/dev',
    tokenEnv: 'FAL_KEY',
    input: { image_size: 'square_hd', num_images: 1 },
    outputOrigins: [fake.cdnUrl],
    pollIntervalMs: 20,
    timeouts: { connectMs: 500, requestMs: 1_000, totalMs: 6_000 },
    ...overrides,
  });
  const engine = (overrides: Record<string, unknown> = {}, options: { key?: string } = {}) => {
    const problems: string[] = [];
    const settings = binding(overrides);
    falEngineKind.validate(settings, 'binding', problems);
    expect(problems).toEqual([]);
    const created = falEngineKind.create('pixel-fal-1', settings, {
      env: (name) => (name === 'FAL_KEY' ? (options.key ?? fake.key) : undefined),
      allowPrivateNetworks: true,
    });
    engines.push(created);
    return created;
  };
  const scenario = (name: FalScenario, overrides: Record<string, unknown> = {}) => engine({ upstreamModel: `fake-ai/${name}`, ...overrides });
  const fail = (promise: Promise<unknown>) => engineFailure(promise, { url: fake.url, secret: fake.key });
  const submits = () => fake.calls('POST', /^\/fake-ai\//);
  const statuses = () => fake.calls('GET', /\/requests\/[^/]+\/status$/);
  const results = () => fake.calls('GET', /\/requests\/[^/]+$/);
  const cancels = () => fake.calls('PUT', /\/requests\/[^/]+\/cancel$/);

  it('validate: refuses an inline key, a missing tokenEnv and a model id without its owner; accepts a subpath', () => {
    const problems = (settings: Record<string, unknown>) => {
      const found: string[] = [];
      falEngineKind.validate(settings, 'models[1].engine', found);
      return found.join('\n');
    };
    expect(problems({ upstreamModel: 'fal-ai/flux/schnell', tokenEnv: 'FAL_KEY' })).toBe('');
    expect(problems({ upstreamModel: 'fal-ai/flux', tokenEnv: 'FAL_KEY', key: 'abc:def' })).toMatch(/models\[1\]\.engine\.key: a credential is never stored/);
    expect(problems({ upstreamModel: 'fal-ai/flux' })).toMatch(/models\[1\]\.engine\.tokenEnv is required/);
    expect(problems({ upstreamModel: 'flux', tokenEnv: 'FAL_KEY' })).toMatch(/models\[1\]\.engine\.upstreamModel must be a fal model id/);
    expect(problems({ upstreamModel: 'fal-ai/flux', tokenEnv: 'FAL_KEY', outputPath: 'images..url' })).toMatch(/\.outputPath must be a dotted path/);
  });

  it("maps the customer's input to fal's names (inputMap) over the static input, and keeps every image of images[]", async () => {
    const outputs = await engine({ inputMap: { num_outputs: 'num_images' } }).generate(engineRequest({ input: { num_outputs: 3, image_size: 'landscape_4_3' } }));
    // Field by field: num_outputs renamed, the customer's image_size over the binding's, the prompt ours.
    expect(JSON.parse(submits().at(-1)!.body)).toEqual({ image_size: 'landscape_4_3', num_images: 3, prompt: 'a red kite' });
    expect(outputs).toHaveLength(3);
    for (const output of outputs) expect(output).toEqual({ data: ASSETS.png, contentType: 'image/png', extension: 'png' });
  });

  it('submits to the queue as documented, stores the request before polling, polls, fetches the result and the file', async () => {
    const request = engineRequest();
    const [output] = await engine().generate(request);
    expect(output).toEqual({ data: ASSETS.png, contentType: 'image/png', extension: 'png' });

    const [submit] = submits();
    expect(submit.path).toBe('/fake-ai/image/dev');
    expect(submit.headers.authorization).toBe(`Key ${fake.key}`);
    expect(submit.headers['content-type']).toBe('application/json');
    // The input is the body: the static parameters and the prompt.
    expect(JSON.parse(submit.body)).toEqual({ image_size: 'square_hd', num_images: 1, prompt: 'a red kite' });

    const queued = fake.queued.at(-1);
    const base = `/fake-ai/image/requests/${queued?.id}`;
    expect(request.saved).toHaveLength(1);
    expect(request.saved[0].ref.startsWith('fal:')).toBe(true);
    expect(JSON.parse(request.saved[0].ref.slice(4))).toEqual({
      id: queued?.id,
      status: `${fake.url}${base}/status`,
      response: `${fake.url}${base}`,
      cancel: `${fake.url}${base}/cancel`,
    });
    // The status URL the submit answered (without the subpath), polled IN_QUEUE -> IN_PROGRESS -> COMPLETED.
    expect(statuses().map((s) => s.path)).toEqual([`${base}/status`, `${base}/status`, `${base}/status`]);
    for (const call of [...statuses(), ...results()]) {
      expect(call.headers.authorization).toBe(`Key ${fake.key}`);
      expect(call.at).toBeGreaterThanOrEqual(request.saved[0].at);
    }
    expect(results().map((r) => r.path)).toEqual([base]);
    const [download] = fake.calls('GET', /^\/files\//, 'cdn');
    expect(download.headers.authorization).toBeUndefined();
  });

  itReturnsEveryOutputShape<FalScenario>(scenario, [
    ['image', 'TEXT_TO_IMAGE', 'png', {}],
    ['image-single', 'TEXT_TO_IMAGE', 'png', {}],
    ['image-data-uri', 'TEXT_TO_IMAGE', 'png', {}],
    ['video', 'TEXT_TO_VIDEO', 'mp4', {}],
    ['audio', 'TEXT_TO_AUDIO', 'wav', {}],
    ['audio-file', 'TEXT_TO_AUDIO', 'wav', {}],
    ['mesh', 'TEXT_TO_3D', 'glb', {}],
    ['custom', 'TEXT_TO_IMAGE', 'png', { outputPath: 'result.media.0.href' }],
  ]);

  it('attaches to a stored request (after a crash) without submitting again', async () => {
    const first = engineRequest({ save: () => Promise.reject(new Error('lease lost')) });
    await expect(scenario('held').generate(first)).rejects.toThrow('lease lost');
    const before = fake.submits();
    fake.release();
    const again = engineRequest({ upstreamRef: first.saved[0].ref });
    expect((await scenario('held').generate(again))[0].contentType).toBe('image/png');
    expect(fake.submits()).toBe(before);
  });

  it('a stored reference whose URLs point off the API origin is refused, never followed', async () => {
    const ref = `fal:${JSON.stringify({ id: 'x', status: `${fake.cdnUrl}/a/b/requests/x/status`, response: `${fake.url}/a/b/requests/x`, cancel: `${fake.url}/a/b/requests/x/cancel` })}`;
    expect((await fail(engine().generate(engineRequest({ upstreamRef: ref })))).userMessage).toBe(USER_MESSAGES.malformed);
    expect(fake.requests).toHaveLength(0);
  });

  describe('failures: a fixed, sanitised message', () => {
    it('the model refused the input (422 on the result): refused', async () => {
      expect((await fail(scenario('fails-422').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.refused);
    });

    it('the request failed upstream (500 with error_type on the result): failed, not asked again', async () => {
      expect((await fail(scenario('fails-500', { retries: 3 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.generation_failed);
      expect(results()).toHaveLength(1);
      expect(JSON.stringify(warn.mock.calls)).toContain('runner_server_error');
    });

    it('401 (a wrong key)', async () => {
      expect((await fail(engine({}, { key: 'wrong:key' }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unauthorized);
      expect(fake.requests).toHaveLength(1);
    });

    it('429 with Retry-After: the submit is retried after the wait, one request queued', async () => {
      const before = fake.submits();
      expect((await scenario('submit-429').generate(engineRequest()))[0].contentType).toBe('image/png');
      const [refused, accepted] = submits();
      expect(accepted.at - refused.at).toBeGreaterThanOrEqual(950);
      expect(fake.submits() - before).toBe(1);
    });

    it('500 on submit, or no answer: not repeated', async () => {
      expect((await fail(scenario('submit-500', { retries: 3 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unavailable);
      expect(submits()).toHaveLength(1);
      fake.requests.length = 0;
      const slow = scenario('submit-hang', { retries: 3, timeouts: { requestMs: 300, totalMs: 3_000 } });
      expect((await fail(slow.generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.timeout);
      expect(submits()).toHaveLength(1);
    });

    it('a slow status call times out and is retried', async () => {
      const [output] = await scenario('status-slow', { timeouts: { requestMs: 400, totalMs: 5_000 } }).generate(engineRequest());
      expect(output.contentType).toBe('image/png');
    });

    it('status failing until retries run out: unavailable, and the request is cancelled', async () => {
      expect((await fail(scenario('status-503', { retries: 1 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unavailable);
      expect(cancels()).toHaveLength(1);
    });

    it('URLs on another origin in the submit answer: malformed, and the key never goes there', async () => {
      expect((await fail(scenario('foreign-urls').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.malformed);
      expect(fake.calls('GET', /requests/, 'cdn')).toHaveLength(0);
    });

    it.each<[FalScenario]>([['no-request-id'], ['unknown-status'], ['no-output'], ['custom']])('malformed answer: %s', async (name) => {
      expect((await fail(scenario(name).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.malformed);
    });

    it('the file answers 404, or is not an image', async () => {
      expect((await fail(scenario('output-404').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_unavailable);
      expect((await fail(scenario('output-html').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_invalid);
    });
  });

  describe('cancel', () => {
    it('on our deadline: timeout, and PUT cancel_url', async () => {
      const error = await fail(scenario('never-finishes', { timeouts: { requestMs: 300, totalMs: 600 } }).generate(engineRequest()));
      expect(error.userMessage).toBe(USER_MESSAGES.timeout);
      expect(cancels().map((c) => c.path)).toEqual([`/fake-ai/never-finishes/requests/${fake.queued.at(-1)?.id}/cancel`]);
      expect(cancels()[0].headers.authorization).toBe(`Key ${fake.key}`);
      expect(fake.queued.at(-1)?.state).toBe('CANCELLED');
    });

    it('when the runner aborts: the request is left alone', async () => {
      const controller = new AbortController();
      const pending = scenario('never-finishes').generate(engineRequest({ signal: controller.signal }));
      while (statuses().length < 2) await new Promise((r) => setTimeout(r, 10));
      controller.abort(new Error('lease lost'));
      await expect(pending).rejects.toThrow('lease lost');
      expect(cancels()).toHaveLength(0);
    });

    it('cancel(ref): true while queued, false once completed (ALREADY_COMPLETED)', async () => {
      const running = engineRequest({ save: () => Promise.reject(new Error('lease lost')) });
      await scenario('never-finishes').generate(running).catch(() => undefined);
      await expect(engine().cancel?.(running.saved[0].ref)).resolves.toBe(true);
      const done = engineRequest();
      await scenario('image').generate(done);
      await expect(engine().cancel?.(done.saved[0].ref)).resolves.toBe(false);
    });
  });
});
