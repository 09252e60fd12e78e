import { Logger } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { FakeReplicate, startFakeReplicate } from '@gen/testing';
import type { CallbackVerifier } from '../../ports/callback-verifier';
import type { Engine } from '../../ports/engine';
import { ReplicateSigningSecrets } from './replicate.callback';
import { ReplicateCallbackVerifier } from './replicate.callback';
import { replicateEngineKind } from './replicate.kind';
import { engineRequest } from '../test/engine-requests';
import { cogEngineKind } from '../cog/cog.kind';
import { falEngineKind } from '../fal/fal.kind';
import { openAiImagesEngineKind } from '../openai-images/openai-images.kind';

/** Replicate's webhook signatures (Standard Webhooks, the account's secret from its API), against the fake. */
describe('replicate callbacks: verification', () => {
  let fake: FakeReplicate;
  let engine: Engine;
  let warn: jest.SpyInstance;
  const PREDICTION = 'gm3qorzdhgbfurvjtvhg6dckhu';
  const ref = `replicate:${PREDICTION}`;
  const body = JSON.stringify({ id: PREDICTION, status: 'succeeded', output: ['https://replicate.delivery/x.png'] });

  beforeAll(async () => {
    fake = await startFakeReplicate();
    engine = replicateEngineKind.create(
      'pixel-replicate-1',
      { baseUrl: fake.url, upstreamModel: 'fake/ok', tokenEnv: 'REPLICATE_API_TOKEN', timeouts: { connectMs: 500, requestMs: 1_000, totalMs: 5_000 } },
      { env: () => fake.token, allowPrivateNetworks: true },
    );
  });
  afterAll(async () => {
    await engine.dispose?.();
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  /** A fresh verifier (its own secret cache) over the engine's client. */
  const verifier = (): CallbackVerifier => new ReplicateCallbackVerifier((engine.callbacks as unknown as { client: never }).client, new ReplicateSigningSecrets());
  const signed = (options: { secret?: string; at?: Date; id?: string; content?: string } = {}) => {
    const at = options.at ?? new Date();
    const id = options.id ?? 'msg_1';
    const content = options.content ?? body;
    return {
      headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(options.secret ?? fake.webhookSecret).sign(id, at, content) },
      body: Buffer.from(content),
    };
  };
  const secretReads = () => fake.calls('GET', /^\/v1\/webhooks\/default\/secret$/);

  it("every replicate engine checks callbacks with the account's secret", () => {
    expect(engine.callbacks).toBeInstanceOf(ReplicateCallbackVerifier);
  });

  it('accepts a delivery signed with the secret the API answers (fetched once with the binding token, then cached)', async () => {
    const v = verifier();
    await expect(v.verify(signed(), ref, Date.now())).resolves.toEqual({ ok: true, deliveryId: 'replicate:msg_1' });
    await expect(v.verify(signed({ id: 'msg_2' }), ref, Date.now())).resolves.toMatchObject({ ok: true });
    expect(secretReads()).toHaveLength(1);
    expect(secretReads()[0].headers.authorization).toBe(`Bearer ${fake.token}`);
  });

  it('refuses a wrong signature, a changed body, a missing header', async () => {
    const v = verifier();
    await expect(v.verify(signed({ secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}` }), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'signature' });
    const tampered = signed();
    await expect(v.verify({ ...tampered, body: Buffer.from(body.replace('succeeded', 'failed')) }, ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'signature' });
    const { 'webhook-signature': _dropped, ...unsigned } = signed().headers;
    await expect(v.verify({ headers: unsigned, body: Buffer.from(body) }, ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'signature' });
  });

  it('refuses a delivery signed more than 5 minutes ago, or ahead of our clock', async () => {
    const v = verifier();
    await expect(v.verify(signed({ at: new Date(Date.now() - 6 * 60_000) }), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'timestamp' });
    await expect(v.verify(signed({ at: new Date(Date.now() + 6 * 60_000) }), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'timestamp' });
    // Within the tolerance, a delivery made 4 minutes ago (a provider's retry) still verifies.
    await expect(v.verify(signed({ at: new Date(Date.now() - 4 * 60_000) }), ref, Date.now())).resolves.toMatchObject({ ok: true });
  });

  it('fetches the secret again once when a signature fails (a rotation), at most every 30 s', async () => {
    const v = verifier();
    await expect(v.verify(signed(), ref, Date.now())).resolves.toMatchObject({ ok: true });
    fake.rotateSecret();
    // Just fetched: a failure right after does not ask again (forged callbacks cannot hammer the API).
    await expect(v.verify(signed(), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'signature' });
    expect(secretReads()).toHaveLength(1);
    // Later, the failure asks once more, finds the new secret, and the delivery verifies.
    await expect(v.verify(signed(), ref, Date.now() + 31_000)).resolves.toMatchObject({ ok: true });
    expect(secretReads()).toHaveLength(2);
  });

  it('refuses a valid delivery about another prediction than the one the job waits on', async () => {
    const v = verifier();
    await expect(v.verify(signed(), 'replicate:someotherprediction', Date.now())).resolves.toMatchObject({ ok: false, reason: 'mismatch' });
    await expect(v.verify(signed(), null, Date.now())).resolves.toMatchObject({ ok: false, reason: 'mismatch' });
    await expect(v.verify(signed({ content: '{"status":"succeeded"}' }), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('says "unverifiable" (not "forged") when the secret cannot be read, and names no credential', async () => {
    const broken = replicateEngineKind.create(
      'pixel-replicate-2',
      { baseUrl: fake.url, upstreamModel: 'fake/ok', tokenEnv: 'REPLICATE_API_TOKEN', timeouts: { connectMs: 500, requestMs: 1_000, totalMs: 5_000 } },
      { env: () => 'r8_wrong-token', allowPrivateNetworks: true },
    );
    try {
      const verdict = await broken.callbacks!.verify(signed(), ref, Date.now());
      expect(verdict).toMatchObject({ ok: false, reason: 'unverifiable' });
      expect(JSON.stringify(verdict)).not.toContain('r8_wrong-token');
    } finally {
      await broken.dispose?.();
    }
  });

  describe('the submit asks for the callback only with "callbacks": true and a URL', () => {
    const URL_ = 'http://127.0.0.1:9/provider-callbacks/replicate/token';
    const make = (callbacks: boolean | undefined) =>
      replicateEngineKind.create(
        'pixel-replicate-3',
        {
          baseUrl: fake.url,
          upstreamModel: 'fake/ok',
          tokenEnv: 'REPLICATE_API_TOKEN',
          outputOrigins: [fake.cdnUrl],
          pollIntervalMs: 20,
          ...(callbacks === undefined ? {} : { callbacks }),
          timeouts: { connectMs: 500, requestMs: 1_000, totalMs: 5_000 },
        },
        { env: () => fake.token, allowPrivateNetworks: true },
      );
    const createBody = () => JSON.parse(fake.calls('POST', /predictions$/).at(-1)!.body) as Record<string, unknown>;

    it.each<[boolean | undefined, string | null, boolean]>([
      [true, URL_, true],
      [true, null, false],
      [false, URL_, false],
      [undefined, URL_, false],
    ])('callbacks %s, callbackUrl %s: webhook sent %s', async (callbacks, callbackUrl, sent) => {
      const e = make(callbacks);
      try {
        await e.generate({ ...engineRequest(), callbackUrl });
        const body = createBody();
        if (sent) expect(body).toMatchObject({ webhook: URL_, webhook_events_filter: ['completed'] });
        else expect(Object.keys(body)).toEqual(['input']);
      } finally {
        await e.dispose?.();
      }
    });
  });

  it('"callbacks" is validated with the binding: a boolean, and only for providers that call back', () => {
    const problems = (kind: typeof replicateEngineKind, settings: Record<string, unknown>) => {
      const found: string[] = [];
      kind.validate(settings, 'm', found);
      return found;
    };
    expect(problems(replicateEngineKind, { upstreamModel: 'a/b', tokenEnv: 'T', callbacks: true })).toEqual([]);
    expect(problems(falEngineKind, { upstreamModel: 'fal-ai/flux', tokenEnv: 'T', callbacks: true })).toEqual([]);
    expect(problems(cogEngineKind, { baseUrl: 'http://cog:5000', callbacks: true })).toEqual([]);
    expect(problems(replicateEngineKind, { upstreamModel: 'a/b', tokenEnv: 'T', callbacks: 'yes' })).toEqual(['m.callbacks must be true or false']);
    expect(problems(openAiImagesEngineKind, { upstreamModel: 'gpt-image-1', callbacks: true })).toEqual([
      "m.callbacks: this engine's provider does not call back; remove the setting (polling is how its jobs are followed)",
    ]);
    expect(problems(openAiImagesEngineKind, { upstreamModel: 'gpt-image-1', callbacks: false })).toEqual([]);
  });
});
