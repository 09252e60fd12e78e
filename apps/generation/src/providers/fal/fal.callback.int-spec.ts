import { createHash, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { FakeFal, startFakeFal } from '@gen/testing';
import type { Engine } from '../../ports/engine';
import { UpstreamHttp } from '../common/upstream-http';
import { FalCallbackVerifier, FalKeySets, FAL_JWKS_URL } from './fal.callback';
import { falEngineKind } from './fal.kind';
import { engineRequest } from '../test/engine-requests';
import { cogEngineKind } from '../cog/cog.kind';
import { startFakeCog } from '@gen/testing';

/** fal's webhook signatures (ED25519 over its headers and the body's SHA-256, keys from its JWKS), with key pairs the tests make. */
describe('fal callbacks: verification', () => {
  let fake: FakeFal;
  let http: UpstreamHttp;
  const REQUEST = '024ca5b1-45d3-4afd-883e-ad3abe2a1c4d';
  const ref = `fal:${JSON.stringify({ id: REQUEST, status: 'x', response: 'y', cancel: 'z' })}`;
  const body = JSON.stringify({ request_id: REQUEST, gateway_request_id: REQUEST, status: 'OK', payload: { images: [{ url: 'https://fal.media/x.png' }] } });

  beforeAll(async () => {
    fake = await startFakeFal();
    http = new UpstreamHttp({ connectTimeoutMs: 500, requestTimeoutMs: 1_000, allowPrivateNetworks: true });
  });
  afterAll(async () => {
    await http.close();
    await fake.close();
  });
  beforeEach(() => (fake.requests.length = 0));

  /** Headers as fal makes them, signed with `key` (by default one the fake publishes: read from its JWKS below). */
  const signed = (key: KeyObject, options: { at?: Date; requestId?: string; content?: string; userId?: string } = {}) => {
    const ts = String(Math.floor((options.at ?? new Date()).getTime() / 1000));
    const content = options.content ?? body;
    const requestId = options.requestId ?? REQUEST;
    const userId = options.userId ?? 'user-1';
    const digest = createHash('sha256').update(content).digest('hex');
    return {
      headers: {
        'x-fal-webhook-request-id': requestId,
        'x-fal-webhook-user-id': userId,
        'x-fal-webhook-timestamp': ts,
        'x-fal-webhook-signature': sign(null, Buffer.from(`${requestId}\n${userId}\n${ts}\n${digest}`), key).toString('hex'),
      },
      body: Buffer.from(content),
    };
  };

  /** A JWKS server of our own: the fake's, whose keys the test can also hold (rotateKey publishes a new one). */
  let published: { privateKey: KeyObject }[] = [];
  const jwks = () => fake.calls('GET', /^\/\.well-known\/jwks\.json$/);
  const verifier = () => new FalCallbackVerifier(http, fake.jwksUrl, new FalKeySets());

  // The fake signs with keys it keeps; these tests sign with pairs they make and serve through a second JWKS.
  let own: { url: string; keys: KeyObject[]; reads: number; close(): Promise<void> };
  beforeAll(async () => {
    const { createServer } = await import('node:http');
    const state = { keys: [] as KeyObject[], reads: 0 };
    const server = createServer((_req, res) => {
      state.reads++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys.map((k, i) => ({ ...k.export({ format: 'jwk' }), kid: `k${i}` })) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    own = {
      url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      get keys() {
        return state.keys;
      },
      get reads() {
        return state.reads;
      },
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    } as typeof own;
  });
  afterAll(() => own.close());
  const pair = () => {
    const made = generateKeyPairSync('ed25519');
    published.push(made);
    own.keys.push(made.publicKey);
    return made.privateKey;
  };
  const ownVerifier = () => new FalCallbackVerifier(http, own.url, new FalKeySets());
  beforeEach(() => {
    published = [];
    own.keys.length = 0;
  });

  it('every fal engine checks callbacks against the JWKS its binding names (fal\'s own by default)', () => {
    const make = (extra: Record<string, unknown>): Engine =>
      falEngineKind.create('pixel-fal-1', { baseUrl: fake.url, upstreamModel: 'fake-ai/image', tokenEnv: 'FAL_KEY', ...extra }, { env: () => fake.key, allowPrivateNetworks: true });
    const byDefault = make({});
    const named = make({ callbackJwksUrl: fake.jwksUrl });
    expect(byDefault.callbacks).toBeInstanceOf(FalCallbackVerifier);
    expect((byDefault.callbacks as unknown as { jwksUrl: string }).jwksUrl).toBe(FAL_JWKS_URL);
    expect((named.callbacks as unknown as { jwksUrl: string }).jwksUrl).toBe(fake.jwksUrl);
    void byDefault.dispose?.();
    void named.dispose?.();
    const problems: string[] = [];
    falEngineKind.validate({ upstreamModel: 'fal-ai/flux/schnell', tokenEnv: 'FAL_KEY', callbackJwksUrl: 'ftp://x' }, 'm', problems);
    expect(problems).toEqual(['m.callbackJwksUrl must use http or https']);
  });

  it('accepts a delivery signed with a published key; the key set is read once and kept', async () => {
    const key = pair();
    const v = ownVerifier();
    const readsBefore = own.reads;
    await expect(v.verify(signed(key), ref, Date.now())).resolves.toMatchObject({ ok: true });
    await expect(v.verify(signed(key, { userId: 'user-2' }), ref, Date.now())).resolves.toMatchObject({ ok: true });
    expect(own.reads - readsBefore).toBe(1);
  });

  it("refuses a signature by a key fal does not publish (the fake fal's JWKS)", async () => {
    const v = verifier();
    const stranger = generateKeyPairSync('ed25519').privateKey;
    await expect(v.verify(signed(stranger), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'signature' });
    expect(jwks().length).toBeGreaterThanOrEqual(1);
  });

  it('refuses a wrong signature, a changed body, a signature that is not hex', async () => {
    const key = pair();
    const v = ownVerifier();
    const good = signed(key);
    await expect(v.verify({ ...good, body: Buffer.from(body.replace('OK', 'ERROR')) }, ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'signature' });
    await expect(v.verify({ ...good, headers: { ...good.headers, 'x-fal-webhook-user-id': 'someone-else' } }, ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'signature' });
    await expect(v.verify({ ...good, headers: { ...good.headers, 'x-fal-webhook-signature': 'zz' } }, ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'signature' });
  });

  it('refuses a delivery signed more than 5 minutes away from our clock', async () => {
    const key = pair();
    const v = ownVerifier();
    await expect(v.verify(signed(key, { at: new Date(Date.now() - 301_000) }), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'timestamp' });
    await expect(v.verify(signed(key, { at: new Date(Date.now() + 301_000) }), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'timestamp' });
  });

  it('a key not in the kept set (a rotation: unknown key id) reads the JWKS again, at most once a minute', async () => {
    pair();
    const v = ownVerifier();
    const t0 = Date.now();
    await expect(v.verify(signed(published[0].privateKey), ref, t0)).resolves.toMatchObject({ ok: true });
    const rotated = pair();
    const reads = own.reads;
    // Read just now: the unknown key does not make it read again within the minute.
    await expect(v.verify(signed(rotated), ref, t0 + 1_000)).resolves.toMatchObject({ ok: false, reason: 'signature' });
    expect(own.reads).toBe(reads);
    // A minute on, it does, and the new key verifies (and stays known).
    await expect(v.verify(signed(rotated), ref, t0 + 61_000)).resolves.toMatchObject({ ok: true });
    await expect(v.verify(signed(rotated), ref, t0 + 62_000)).resolves.toMatchObject({ ok: true });
    expect(own.reads).toBe(reads + 1);
  });

  it('refuses a valid delivery about another request than the one the job waits on', async () => {
    const key = pair();
    const v = ownVerifier();
    await expect(v.verify(signed(key, { requestId: 'another-request' }), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'mismatch' });
    await expect(v.verify(signed(key), null, Date.now())).resolves.toMatchObject({ ok: false, reason: 'mismatch' });
  });

  it('says "unverifiable" when the key set cannot be read (nothing listening, or no Ed25519 key in it)', async () => {
    const down = new FalCallbackVerifier(http, 'http://127.0.0.1:9/.well-known/jwks.json', new FalKeySets());
    await expect(down.verify(signed(generateKeyPairSync('ed25519').privateKey), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'unverifiable' });
    own.keys.length = 0;
    await expect(ownVerifier().verify(signed(generateKeyPairSync('ed25519').privateKey), ref, Date.now())).resolves.toMatchObject({ ok: false, reason: 'unverifiable' });
  });

  it('fal: the submit carries `fal_webhook` only with "callbacks": true and a URL', async () => {
    const url = 'http://127.0.0.1:9/provider-callbacks/fal/token';
    for (const [callbacks, callbackUrl, sent] of [
      [true, url, true],
      [false, url, false],
      [true, null, false],
    ] as const) {
      const e = falEngineKind.create(
        'pixel-fal-2',
        { baseUrl: fake.url, upstreamModel: 'fake-ai/image', tokenEnv: 'FAL_KEY', outputOrigins: [fake.cdnUrl], pollIntervalMs: 20, callbacks, timeouts: { connectMs: 500, requestMs: 1_000, totalMs: 5_000 } },
        { env: () => fake.key, allowPrivateNetworks: true },
      );
      try {
        await e.generate({ ...engineRequest(), callbackUrl });
        const submit = fake.calls('POST', /^\/fake-ai\/image/).at(-1)!;
        expect(new URL(submit.path, fake.url).searchParams.get('fal_webhook')).toBe(sent ? url : null);
      } finally {
        await e.dispose?.();
      }
    }
  });

  it('cog: the prediction carries `webhook` and `webhook_events_filter: ["completed"]` only with "callbacks": true and a URL', async () => {
    const cog = await startFakeCog();
    const url = 'http://127.0.0.1:9/provider-callbacks/cog/token';
    try {
      for (const [callbacks, sent] of [
        [true, true],
        [false, false],
      ] as const) {
        const e = cogEngineKind.create('pixel-cog-2', { baseUrl: cog.url, pollIntervalMs: 20, callbacks, timeouts: { connectMs: 500, requestMs: 1_000, totalMs: 5_000 } }, { env: () => undefined, allowPrivateNetworks: true });
        try {
          await e.generate({ ...engineRequest(), callbackUrl: url });
          const body = JSON.parse(cog.calls('PUT', /^\/predictions\//).at(-1)!.body) as Record<string, unknown>;
          if (sent) expect(body).toMatchObject({ webhook: url, webhook_events_filter: ['completed'] });
          else expect(Object.keys(body)).toEqual(['input']);
        } finally {
          await e.dispose?.();
        }
      }
    } finally {
      await cog.close();
    }
  });
});
