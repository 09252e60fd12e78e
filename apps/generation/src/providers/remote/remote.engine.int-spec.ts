import { Logger } from '@nestjs/common';
import type { GenerationType } from '@gen/contracts';
import { FakeUpstream, sanitisationProblems, startFakeUpstream, UpstreamScenario } from '@gen/testing';
import { EngineError, EngineRequest } from '../../ports/engine';
import { Credential } from '../common/upstream-client';
import { USER_MESSAGES } from '../common/upstream-failure';
import { RemoteEngine } from './remote.engine';
import { REMOTE_DEFAULTS, RemoteEngineSettings } from './remote-engine.settings';

/** The remote adapter against a fake upstream on 127.0.0.1 (real HTTP, no mocks of our own code). */
describe('RemoteEngine', () => {
  let upstream: FakeUpstream;
  const engines: RemoteEngine[] = [];
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
  });
  afterAll(() => upstream.close());
  beforeEach(() => {
    upstream.requests.length = 0;
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    warn.mockRestore();
    await Promise.all(engines.splice(0).map((e) => e.dispose()));
  });

  const credential = (secret: string): Credential => ({ header: 'Authorization', value: `Bearer ${secret}`, secret });
  const engine = (
    scenario: UpstreamScenario,
    overrides: Partial<RemoteEngineSettings> = {},
    options: { secret?: string; allowPrivateNetworks?: boolean } = {},
  ) => {
    const created = new RemoteEngine(
      `remote:${scenario}`,
      {
        ...REMOTE_DEFAULTS,
        baseUrl: upstream.url,
        cancelPath: '/v1/generations/{id}/cancel',
        upstreamModel: scenario,
        auth: { header: 'Authorization', valueEnv: 'FAKE_UPSTREAM_TOKEN', prefix: 'Bearer ' },
        params: { width: 512 },
        pollIntervalMs: 20,
        requestTimeoutMs: 1_000,
        totalTimeoutMs: 5_000,
        outputOrigins: [],
        ...overrides,
      },
      credential(options.secret ?? upstream.secret),
      options.allowPrivateNetworks ?? true,
    );
    engines.push(created);
    return created;
  };

  let seq = 0;
  const saved: string[] = [];
  const request = (options: { type?: GenerationType; signal?: AbortSignal; upstreamRef?: string } = {}): EngineRequest => ({
    jobId: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
    modelId: 'pixel-remote-1',
    type: options.type ?? 'TEXT_TO_IMAGE',
    prompt: 'a red kite',
    input: {},
    seed: 7,
    // What the runner passes: the binding's settings and the simulated latency; none of it goes upstream.
    params: { baseUrl: upstream.url, latencyMs: 150 },
    signal: options.signal ?? new AbortController().signal,
    upstreamRef: options.upstreamRef ?? null,
    saveUpstreamRef: (ref) => {
      saved.push(ref);
      return Promise.resolve();
    },
  });
  const run = (e: RemoteEngine, options: { type?: GenerationType; signal?: AbortSignal; upstreamRef?: string } = {}) => e.generate(request(options));

  /** Runs a failing case and returns its EngineError, checking the message is one of ours and clean. */
  const failure = async (promise: Promise<unknown>): Promise<EngineError> => {
    const error = await promise.then(
      () => {
        throw new Error('expected the generation to fail');
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    const message = (error as EngineError).userMessage;
    expect(sanitisationProblems(message, upstream)).toEqual([]);
    expect(Object.values(USER_MESSAGES)).toContain(message);
    // The operator's log has the details, but never the credential.
    expect(JSON.stringify(warn.mock.calls)).not.toContain(upstream.secret);
    return error as EngineError;
  };

  const calls = (method: string, pattern: RegExp) => upstream.requests.filter((r) => r.method === method && pattern.test(r.path));

  it('submits, polls and downloads the output: real PNG bytes, with the credential and idempotency key', async () => {
    const jobId = `00000000-0000-4000-8000-${String(seq + 1).padStart(12, '0')}`;
    const [output] = await run(engine('ok'));
    expect(output).toEqual({ data: upstream.png, contentType: 'image/png', extension: 'png' });

    const [submit] = calls('POST', /^\/v1\/generations$/);
    expect(submit.headers.authorization).toBe(`Bearer ${upstream.secret}`);
    expect(submit.headers['idempotency-key']).toBe(jobId);
    expect(submit.headers['content-type']).toBe('application/json');
    // The binding's static params go upstream; our own settings (base URL, latency) never do.
    expect(JSON.parse(submit.body)).toEqual({ model: 'ok', type: 'TEXT_TO_IMAGE', prompt: 'a red kite', seed: 7, params: { width: 512 }, input: {} });
    expect(calls('GET', /^\/v1\/generations\/up_\d+$/).length).toBeGreaterThanOrEqual(2);
    expect(calls('GET', /^\/files\//)).toHaveLength(1);
    // The upstream id was stored on our job as soon as the submit answered.
    const id = /^\/v1\/generations\/(up_\d+)$/.exec(calls('GET', /^\/v1\/generations\/up_\d+$/)[0].path)?.[1];
    expect(saved.at(-1)).toBe(`remote:${id}`);
  });

  it("a parked job's check reads the pending job's progress and queue position; the binding is the account (kind, credential variable, base URL)", async () => {
    const e = engine('ok');
    const phases = e.phases!;
    expect(phases.binding).toBe(`remote:FAKE_UPSTREAM_TOKEN@${upstream.url}`);
    const submitted = request();
    expect(await phases.start(submitted)).toEqual({ ended: false });
    const check = await phases.check({ ...submitted, upstreamRef: saved.at(-1)! });
    expect(check).toEqual({ ended: false, progress: 0.5, queuePosition: 0 });
    // Ended: nothing of the kind, the state to collect.
    expect(await phases.check({ ...submitted, upstreamRef: saved.at(-1)! })).toMatchObject({ ended: true });
  });

  it('attaches to the upstream job an earlier attempt stored, without submitting again', async () => {
    await run(engine('ok'));
    const ref = saved.at(-1) as string;
    upstream.requests.length = 0;
    const [output] = await run(engine('ok'), { upstreamRef: ref });
    expect(output.contentType).toBe('image/png');
    expect(calls('POST', /^\/v1\/generations$/)).toHaveLength(0);
    expect(calls('GET', /^\/v1\/generations\/up_\d+$/).length).toBeGreaterThanOrEqual(1);
  });

  it('does not submit a job whose stored reference belongs to another engine kind', async () => {
    const error = await failure(run(engine('ok'), { upstreamRef: 'replicate:abc' }));
    expect(error.userMessage).toBe(USER_MESSAGES.unavailable);
    expect(upstream.requests).toHaveLength(0);
  });

  it('cancel(ref) sends the cancel call for a stored reference', async () => {
    const e = engine('never-finishes');
    await expect(e.cancel('remote:up_77')).resolves.toBe(true);
    expect(calls('POST', /^\/v1\/generations\/up_77\/cancel$/)).toHaveLength(1);
    await expect(e.cancel('fal:{}')).resolves.toBe(false);
  });

  it('refuses a loopback upstream where private networks are not allowed (nothing is sent)', async () => {
    const error = await failure(run(engine('ok', {}, { allowPrivateNetworks: false })));
    expect(error.userMessage).toBe(USER_MESSAGES.unavailable);
    expect(upstream.requests).toHaveLength(0);
  });

  it('sends our model id upstream when no upstreamModel is configured', async () => {
    await run(engine('ok', { upstreamModel: null })).catch(() => undefined);
    expect(JSON.parse(calls('POST', /^\/v1\/generations$/)[0].body).model).toBe('pixel-remote-1');
  });

  it('downloads from an allowed output origin without sending it the credential', async () => {
    const [output] = await run(engine('foreign-output', { outputOrigins: [upstream.cdnUrl] }));
    expect(output.data?.equals(upstream.png)).toBe(true);
    const download = upstream.requests.find((r) => r.origin === 'cdn');
    expect(download).toBeDefined();
    expect(download?.headers.authorization).toBeUndefined();
  });

  it('refuses an output on an origin that is not allowed (and never contacts it)', async () => {
    const error = await failure(run(engine('foreign-output')));
    expect(error.userMessage).toBe(USER_MESSAGES.output_unavailable);
    expect(upstream.requests.some((r) => r.origin === 'cdn')).toBe(false);
  });

  it('429 with Retry-After on submit: submitted again after the wait, with the same idempotency key', async () => {
    const [output] = await run(engine('submit-429'));
    expect(output.contentType).toBe('image/png');
    const [refused, accepted] = calls('POST', /^\/v1\/generations$/);
    expect(accepted.at - refused.at).toBeGreaterThanOrEqual(950);
    expect(accepted.headers['idempotency-key']).toBe(refused.headers['idempotency-key']);
  });

  it('retries a transient poll failure and succeeds', async () => {
    const [output] = await run(engine('flaky-poll', { retries: 1 }));
    expect(output.contentType).toBe('image/png');
  });

  describe('each failure ends as a sanitised EngineError', () => {
    it('upstream timeout: submit never answers (each try times out, retried with the same idempotency key)', async () => {
      const started = Date.now();
      const error = await failure(run(engine('submit-hang', { requestTimeoutMs: 150, retries: 1 })));
      expect(error.userMessage).toBe(USER_MESSAGES.timeout);
      const submits = calls('POST', /^\/v1\/generations$/);
      expect(submits).toHaveLength(2);
      expect(submits[0].headers['idempotency-key']).toBe(submits[1].headers['idempotency-key']);
      expect(Date.now() - started).toBeLessThan(3_000);
    });

    it('upstream timeout: the job never finishes within timeouts.totalMs, and the upstream job is cancelled', async () => {
      const started = Date.now();
      const error = await failure(run(engine('never-finishes', { totalTimeoutMs: 400 })));
      expect(error.userMessage).toBe(USER_MESSAGES.timeout);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(calls('POST', /^\/v1\/generations\/up_\d+\/cancel$/)).toHaveLength(1);
    });

    it('5xx on submit, retried then given up', async () => {
      const error = await failure(run(engine('submit-500', { retries: 2 })));
      expect(error.userMessage).toBe(USER_MESSAGES.unavailable);
      expect(calls('POST', /^\/v1\/generations$/)).toHaveLength(3);
    });

    it('5xx on every status poll', async () => {
      expect((await failure(run(engine('poll-503', { retries: 1 })))).userMessage).toBe(USER_MESSAGES.unavailable);
    });

    it.each<[UpstreamScenario]>([['submit-html'], ['submit-no-id'], ['status-unknown'], ['succeeded-no-output']])(
      'malformed answer: %s',
      async (scenario) => {
        expect((await failure(run(engine(scenario)))).userMessage).toBe(USER_MESSAGES.malformed);
      },
    );

    it('output URL answers 404 (not retried)', async () => {
      expect((await failure(run(engine('output-404', { retries: 2 })))).userMessage).toBe(USER_MESSAGES.output_unavailable);
      expect(calls('GET', /^\/files\//)).toHaveLength(1);
    });

    it('output is not an image (an HTML page served as image/png)', async () => {
      expect((await failure(run(engine('output-html')))).userMessage).toBe(USER_MESSAGES.output_invalid);
    });

    it('output is an image, but the model makes video', async () => {
      expect((await failure(run(engine('ok'), { type: 'TEXT_TO_VIDEO' }))).userMessage).toBe(USER_MESSAGES.output_invalid);
    });

    it('output larger than maxOutputBytes', async () => {
      expect((await failure(run(engine('ok', { maxOutputBytes: 16 })))).userMessage).toBe(USER_MESSAGES.output_invalid);
    });

    it('the upstream reports the generation as failed (its error text is logged, not shown)', async () => {
      expect((await failure(run(engine('failed')))).userMessage).toBe(USER_MESSAGES.generation_failed);
      expect(JSON.stringify(warn.mock.calls)).toContain('CUDA OOM');
    });

    it('wrong credential (401)', async () => {
      const e = engine('ok', {}, { secret: 'wrong' });
      expect((await failure(run(e))).userMessage).toBe(USER_MESSAGES.unauthorized);
    });

    it('nothing listens at the base URL', async () => {
      const closed = await startFakeUpstream();
      await closed.close();
      const error = await failure(run(engine('ok', { baseUrl: closed.url, retries: 0 })));
      expect(error.userMessage).toBe(USER_MESSAGES.unavailable);
    });
  });

  it('cancellation by the runner (lease lost, shutdown) rethrows its reason and leaves the upstream job alone', async () => {
    const controller = new AbortController();
    const reason = new Error('lease lost');
    const pending = run(engine('never-finishes'), { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 150));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(calls('POST', /cancel$/)).toHaveLength(0);
  });
});
