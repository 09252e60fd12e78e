import { Logger } from '@nestjs/common';
import { ASSETS, FakeReplicate, LEAK, ReplicateScenario, startFakeReplicate } from '@gen/testing';
import { engineFailure, engineRequest, itReturnsEveryOutputShape } from '../test/engine-requests';
import type { Engine } from '../../ports/engine';
import { USER_MESSAGES } from '../common/upstream-failure';
import { replicateEngineKind } from './replicate.kind';

/** The replicate adapter against a fake of Replicate's documented HTTP API on 127.0.0.1. */
describe('replicate engine', () => {
  let fake: FakeReplicate;
  const engines: Engine[] = [];
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    fake = await startFakeReplicate({ slowMs: 1_200 });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    // The credential never reaches the operator's log either.
    expect(JSON.stringify(warn.mock.calls)).not.toContain(fake.token);
    warn.mockRestore();
    await Promise.all(engines.splice(0).map((e) => e.dispose?.() ?? Promise.resolve()));
  });

  const binding = (overrides: Record<string, unknown> = {}) => ({
    baseUrl: fake.url,
    upstreamModel: 'fake/ok',
    tokenEnv: 'REPLICATE_API_TOKEN',
    input: { aspect_ratio: '1:1' },
    outputOrigins: [fake.cdnUrl],
    pollIntervalMs: 20,
    timeouts: { connectMs: 500, requestMs: 1_000, totalMs: 6_000 },
    ...overrides,
  });
  const engine = (overrides: Record<string, unknown> = {}, options: { token?: string; allowPrivateNetworks?: boolean } = {}) => {
    const problems: string[] = [];
    const settings = binding(overrides);
    replicateEngineKind.validate(settings, 'binding', problems);
    expect(problems).toEqual([]);
    const created = replicateEngineKind.create('pixel-replicate-1', settings, {
      env: (name) => (name === 'REPLICATE_API_TOKEN' ? (options.token ?? fake.token) : undefined),
      allowPrivateNetworks: options.allowPrivateNetworks ?? true,
    });
    engines.push(created);
    return created;
  };
  const scenario = (name: ReplicateScenario, overrides: Record<string, unknown> = {}) => engine({ upstreamModel: `fake/${name}`, ...overrides });
  const fail = (promise: Promise<unknown>) => engineFailure(promise, { url: fake.url, secret: fake.token });
  const polls = () => fake.calls('GET', /^\/v1\/predictions\/[^/]+$/);
  const creates = () => fake.calls('POST', /^\/v1\/(models\/[^/]+\/[^/]+\/)?predictions$/);
  const cancels = () => fake.calls('POST', /^\/v1\/predictions\/[^/]+\/cancel$/);

  describe('validate (no environment)', () => {
    const problems = (settings: Record<string, unknown>) => {
      const found: string[] = [];
      replicateEngineKind.validate(settings, 'models[0].engine', found);
      return found;
    };

    it('accepts an official model, a pinned version, and the defaults (base URL, timeouts, outputOrigins)', () => {
      expect(problems({ upstreamModel: 'black-forest-labs/flux-schnell', tokenEnv: 'REPLICATE_API_TOKEN' })).toEqual([]);
      expect(problems({ upstreamModel: `stability-ai/sdxl:${'a'.repeat(64)}`, tokenEnv: 'REPLICATE_API_TOKEN', preferWait: 5 })).toEqual([]);
      expect(problems({ upstreamModel: 'b'.repeat(64), tokenEnv: 'T', input: { num_outputs: 1 }, seedField: 'seed' })).toEqual([]);
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['an inline token', { upstreamModel: 'a/b', tokenEnv: 'T', token: 'r8_secret' }, /models\[0\]\.engine\.token: a credential is never stored/],
      ['an api key by another name', { upstreamModel: 'a/b', tokenEnv: 'T', apiKey: 'x' }, /\.apiKey: a credential is never stored/],
      ['a token pasted as tokenEnv', { upstreamModel: 'a/b', tokenEnv: 'r8_abcdef0123' }, /\.tokenEnv must be the name of an environment variable/],
      ['no tokenEnv', { upstreamModel: 'a/b' }, /\.tokenEnv is required/],
      ['no upstreamModel', { tokenEnv: 'T' }, /\.upstreamModel is required/],
      ['a bad upstreamModel', { upstreamModel: 'flux', tokenEnv: 'T' }, /\.upstreamModel must be "owner\/name"/],
      ['a base URL with credentials', { upstreamModel: 'a/b', tokenEnv: 'T', baseUrl: 'https://u:p@api.replicate.com' }, /\.baseUrl must not carry credentials/],
      ['a prompt among the static inputs', { upstreamModel: 'a/b', tokenEnv: 'T', input: { prompt: 'x' } }, /\.input\.prompt is set from each generation/],
      ['preferWait out of range', { upstreamModel: 'a/b', tokenEnv: 'T', preferWait: 61 }, /\.preferWait must be an integer between 1 and 60/],
      ['preferWait longer than the call', { upstreamModel: 'a/b', tokenEnv: 'T', preferWait: 20 }, /\.timeouts\.requestMs must be longer than preferWait/],
      ['an unknown setting', { upstreamModel: 'a/b', tokenEnv: 'T', polling: 1 }, /\.polling is not a setting of this engine/],
      ['a bad output origin', { upstreamModel: 'a/b', tokenEnv: 'T', outputOrigins: ['https://cdn.example/path'] }, /\.outputOrigins\[0\] must be an origin/],
    ])('refuses %s, naming the field', (_label, settings, message) => {
      expect(problems(settings).join('\n')).toMatch(message);
    });
  });

  it('a missing credential makes the model unavailable (in words naming no variable), not the catalogue fail', () => {
    const created = replicateEngineKind.create('m', binding(), { env: () => undefined, allowPrivateNetworks: true });
    const reason = created.unavailableReason?.();
    expect(reason).toMatch(/temporarily unavailable/);
    expect(reason).not.toMatch(/REPLICATE|env|127\.0\.0\.1/);
  });

  it('creates the prediction as documented, stores its id before polling, polls and downloads the output', async () => {
    const request = engineRequest();
    const [output] = await engine().generate(request);
    expect(output).toEqual({ data: ASSETS.png, contentType: 'image/png', extension: 'png' });

    const [create] = creates();
    expect(create.path).toBe('/v1/models/fake/ok/predictions');
    expect(create.headers.authorization).toBe(`Bearer ${fake.token}`);
    expect(create.headers['content-type']).toBe('application/json');
    expect(create.headers.prefer).toBeUndefined(); // sync mode is off unless configured
    expect(create.headers['cancel-after']).toMatch(/^\d+s$/);
    expect(Number(String(create.headers['cancel-after']).slice(0, -1))).toBeGreaterThanOrEqual(5);
    // Exactly the documented body: the static input and the prompt, nothing of our own settings.
    expect(JSON.parse(create.body)).toEqual({ input: { aspect_ratio: '1:1', prompt: 'a red kite' } });

    const id = fake.predictions[0].id;
    expect(request.saved.map((s) => s.ref)).toEqual([`replicate:${id}`]);
    expect(polls().length).toBeGreaterThanOrEqual(2);
    for (const poll of polls()) {
      expect(poll.path).toBe(`/v1/predictions/${id}`);
      expect(poll.headers.authorization).toBe(`Bearer ${fake.token}`);
      expect(poll.at).toBeGreaterThanOrEqual(request.saved[0].at);
    }
    // The output comes from the CDN origin, which never sees the token.
    const downloads = fake.calls('GET', /^\/files\//, 'cdn');
    expect(downloads).toHaveLength(1);
    expect(downloads[0].headers.authorization).toBeUndefined();
  });

  it('a model pinned by version is created with POST /v1/predictions and {"version", "input"}', async () => {
    const version = `fake/pinned:${'c'.repeat(64)}`;
    await engine({ upstreamModel: version }).generate(engineRequest());
    const [create] = creates();
    expect(create.path).toBe('/v1/predictions');
    expect(JSON.parse(create.body)).toEqual({ version, input: { aspect_ratio: '1:1', prompt: 'a red kite' } });
  });

  it("lays the customer's input over the static input, and returns every output the prediction gave, in order", async () => {
    const outputs = await engine({ seedField: 'seed' }).generate(engineRequest({ input: { num_outputs: 3, seed: 42, aspect_ratio: '16:9' } }));
    // Field by field: the customer's seed wins over ours, their aspect_ratio over the binding's, the prompt is ours.
    expect(JSON.parse(creates()[0].body)).toEqual({ input: { aspect_ratio: '16:9', num_outputs: 3, seed: 42, prompt: 'a red kite' } });
    expect(outputs).toHaveLength(3);
    for (const output of outputs) expect(output).toEqual({ data: ASSETS.png, contentType: 'image/png', extension: 'png' });
    const id = fake.predictions.at(-1)!.id;
    expect(fake.calls('GET', /^\/files\//, 'cdn').map((c) => c.path).sort()).toEqual([`/files/${id}-1.png`, `/files/${id}-2.png`, `/files/${id}.png`]);
  });

  it('sends the job seed when seedField names the input', async () => {
    await engine({ seedField: 'seed' }).generate(engineRequest());
    expect(JSON.parse(creates()[0].body)).toEqual({ input: { aspect_ratio: '1:1', prompt: 'a red kite', seed: 7 } });
  });

  itReturnsEveryOutputShape<ReplicateScenario>(
    scenario,
    [
      ['ok', 'TEXT_TO_IMAGE', 'png', {}],
      ['ok-string', 'TEXT_TO_IMAGE', 'png', {}],
      ['ok-jpeg', 'TEXT_TO_IMAGE', 'jpeg', {}],
      ['ok-data-uri', 'TEXT_TO_IMAGE', 'png', {}],
      ['ok-video', 'TEXT_TO_VIDEO', 'mp4', {}],
      ['ok-audio', 'TEXT_TO_AUDIO', 'wav', {}],
      ['ok-3d', 'TEXT_TO_3D', 'glb', {}],
      ['object-output', 'TEXT_TO_IMAGE', 'png', { outputPath: 'image' }],
    ],
    (name) => {
      if (name === 'ok-data-uri') expect(fake.calls('GET', /^\/files\//, 'cdn')).toHaveLength(0);
    },
  );

  it('Prefer: wait=N (when configured) takes the output from the create answer without polling', async () => {
    const request = engineRequest();
    const [output] = await engine({ preferWait: 5, timeouts: { requestMs: 8_000, totalMs: 10_000 } }).generate(request);
    expect(output.contentType).toBe('image/png');
    expect(creates()[0].headers.prefer).toBe('wait=5');
    expect(polls()).toHaveLength(0);
    expect(request.saved).toHaveLength(1); // stored anyway: a crash during the download re-attaches
  });

  it('attaches to the prediction an earlier attempt stored, without creating another', async () => {
    const first = engineRequest({ save: () => Promise.reject(new Error('lease lost')) });
    await expect(scenario('held').generate(first)).rejects.toThrow('lease lost');
    expect(fake.creates()).toBeGreaterThanOrEqual(1);
    const before = fake.creates();
    fake.release();
    const ref = first.saved[0].ref;
    const again = engineRequest({ upstreamRef: ref });
    const [output] = await scenario('held').generate(again);
    expect(output.contentType).toBe('image/png');
    expect(fake.creates()).toBe(before);
    expect(again.saved).toEqual([]);
  });

  it('stops, without polling, when the reference cannot be stored (the job is no longer ours)', async () => {
    const lost = new Error('lease lost');
    await expect(scenario('ok').generate(engineRequest({ save: () => Promise.reject(lost) }))).rejects.toBe(lost);
    expect(polls()).toHaveLength(0);
  });

  describe('failures: a fixed, sanitised message', () => {
    it('the prediction fails (its error text goes to the log only)', async () => {
      expect((await fail(scenario('fails').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.generation_failed);
      expect(JSON.stringify(warn.mock.calls)).toContain('CUDA out of memory');
    });

    it.each<[ReplicateScenario]>([['canceled-upstream'], ['aborted']])('the prediction ends %s', async (name) => {
      expect((await fail(scenario(name).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.generation_failed);
    });

    it('401 from Replicate (a wrong token): unauthorized, not retried', async () => {
      const error = await fail(engine({}, { token: 'r8_wrong' }).generate(engineRequest()));
      expect(error.userMessage).toBe(USER_MESSAGES.unauthorized);
      expect(fake.requests).toHaveLength(1);
    });

    it('429 with Retry-After: the create is retried after the wait it asks for, and one prediction is made', async () => {
      const before = fake.creates();
      const [output] = await scenario('create-429').generate(engineRequest());
      expect(output.contentType).toBe('image/png');
      const [refused, accepted] = creates();
      expect(accepted.at - refused.at).toBeGreaterThanOrEqual(950);
      expect(fake.creates() - before).toBe(1);
    });

    it('429 with a Retry-After past the deadline: gives up at once instead of waiting', async () => {
      expect((await fail(scenario('create-429-long').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unavailable);
      expect(creates()).toHaveLength(1);
    });

    it('500 on create is not retried: the prediction may exist, a second create would pay twice', async () => {
      expect((await fail(scenario('create-500', { retries: 3 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unavailable);
      expect(creates()).toHaveLength(1);
    });

    it('a create that never answers times out and is not repeated', async () => {
      const error = await fail(scenario('create-hang', { timeouts: { requestMs: 300, totalMs: 3_000 }, retries: 3 }).generate(engineRequest()));
      expect(error.userMessage).toBe(USER_MESSAGES.timeout);
      expect(creates()).toHaveLength(1);
    });

    it('a slow poll times out and is retried (polls are safe to repeat)', async () => {
      const [output] = await scenario('poll-slow', { timeouts: { requestMs: 400, totalMs: 5_000 } }).generate(engineRequest());
      expect(output.contentType).toBe('image/png');
      expect(polls().length).toBeGreaterThanOrEqual(3);
    });

    it('a 503 poll is retried', async () => {
      expect((await scenario('poll-503-once').generate(engineRequest()))[0].contentType).toBe('image/png');
    });

    it('polls failing until retries run out: unavailable, and the abandoned prediction is cancelled', async () => {
      expect((await fail(scenario('poll-503', { retries: 1 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unavailable);
      expect(cancels()).toHaveLength(1);
    });

    it.each<[ReplicateScenario]>([['create-html'], ['create-no-id'], ['unknown-status'], ['no-output'], ['object-output']])('malformed answer: %s', async (name) => {
      expect((await fail(scenario(name).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.malformed);
    });

    it('the output was removed upstream', async () => {
      expect((await fail(scenario('removed').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_unavailable);
    });

    it('the output URL answers 404', async () => {
      expect((await fail(scenario('output-404').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_unavailable);
    });

    it('an output on an origin not allowed is refused and never fetched', async () => {
      expect((await fail(scenario('ok', { outputOrigins: [] }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_unavailable);
      expect(fake.calls('GET', /./, 'cdn')).toHaveLength(0);
    });

    it('the output is an HTML page served as image/png, or too large', async () => {
      expect((await fail(scenario('output-html').generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_invalid);
      expect((await fail(scenario('ok', { maxOutputBytes: 16 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_invalid);
      expect((await fail(scenario('ok-data-uri', { maxOutputBytes: 16 }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.output_invalid);
    });

    it('an image where the model makes video', async () => {
      expect((await fail(scenario('ok').generate(engineRequest({ type: 'TEXT_TO_VIDEO' })))).userMessage).toBe(USER_MESSAGES.output_invalid);
    });

    it('Replicate on a private address where private networks are not allowed: refused, nothing sent', async () => {
      expect((await fail(engine({}, { allowPrivateNetworks: false }).generate(engineRequest()))).userMessage).toBe(USER_MESSAGES.unavailable);
      expect(fake.requests).toHaveLength(0);
    });

    it('no error message or log line carries what the provider leaked', async () => {
      await fail(scenario('fails').generate(engineRequest()));
      expect(JSON.stringify(warn.mock.calls)).not.toContain(fake.token);
      expect(LEAK).toContain('sk-upstream'); // the fake did leak; the message checks above found none of it
    });
  });

  describe('cancel', () => {
    it('on our deadline: timeout, and the prediction is cancelled with POST .../cancel', async () => {
      const error = await fail(scenario('never-finishes', { timeouts: { requestMs: 300, totalMs: 600 } }).generate(engineRequest()));
      expect(error.userMessage).toBe(USER_MESSAGES.timeout);
      expect(cancels()).toHaveLength(1);
      expect(cancels()[0].path).toBe(`/v1/predictions/${fake.predictions.at(-1)?.id}/cancel`);
      expect(cancels()[0].headers.authorization).toBe(`Bearer ${fake.token}`);
      expect(fake.predictions.at(-1)?.status).toBe('canceled');
    });

    it('when the runner aborts (lease lost, shutdown): its reason, and the prediction is left alone', async () => {
      const controller = new AbortController();
      const reason = new Error('shutting down');
      const pending = scenario('never-finishes').generate(engineRequest({ signal: controller.signal }));
      while (polls().length < 2) await new Promise((r) => setTimeout(r, 10));
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      expect(cancels()).toHaveLength(0);
    });

    it('cancel(ref) cancels a stored prediction later (a user cancel); false for a foreign reference', async () => {
      const first = engineRequest({ save: () => Promise.reject(new Error('lease lost')) });
      await scenario('never-finishes').generate(first).catch(() => undefined);
      const e = scenario('never-finishes');
      await expect(e.cancel?.(first.saved[0].ref)).resolves.toBe(true);
      expect(fake.predictions.at(-1)?.status).toBe('canceled');
      await expect(e.cancel?.('fal:{"id":"x"}')).resolves.toBe(false);
      await expect(e.cancel?.('replicate:no-such-prediction')).resolves.toBe(false);
    });
  });
});
