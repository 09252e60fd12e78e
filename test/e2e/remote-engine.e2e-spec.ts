import type { ModelDefinitionInput } from '@gen/generation';
import { eventually, FakeUpstream, http, sanitisationProblems, startFakeUpstream, UpstreamScenario } from '@gen/testing';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/**
 * The remote engine adapter (our own generic protocol) end to end through standalone: catalogue models
 * bound to a fake upstream (`{"engine": "remote", ...}`, the credential named by `auth.valueEnv` and
 * read from the environment), driven over HTTP as a client would. Every failure must end as `failed`
 * with a sanitised error and the full refund.
 */
describe('standalone: models bound to a remote upstream API', () => {
  let upstream: FakeUpstream;
  let h: StandaloneHarness;

  const scenarios: UpstreamScenario[] = [
    'ok',
    'ok-jpeg',
    'submit-hang',
    'never-finishes',
    'submit-500',
    'poll-503',
    'submit-html',
    'status-unknown',
    'output-404',
    'output-html',
    'failed',
  ];
  const modelId = (scenario: UpstreamScenario) => `remote-${scenario}`;
  const PRICE = 5;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    const models: ModelDefinitionInput[] = scenarios.map((scenario) =>
      testModel({
        id: modelId(scenario),
        name: `Remote ${scenario}`,
        credits: PRICE,
        engine: 'remote',
        params: {
          baseUrl: upstream.url,
          upstreamModel: scenario,
          cancelPath: '/v1/generations/{id}/cancel',
          auth: { header: 'Authorization', prefix: 'Bearer ', valueEnv: 'FAKE_UPSTREAM_TOKEN' },
          params: { width: 64, height: 64 },
          timeouts: { connectMs: 500, requestMs: 300, totalMs: 1_500 },
          pollIntervalMs: 20,
          retries: 1,
        },
      }),
    );
    h = await startStandaloneHarness({ FAKE_UPSTREAM_TOKEN: upstream.secret }, { models });
  });
  afterAll(async () => {
    await h?.close();
    await upstream?.close();
  });

  const credits = async (key: string) => (await http(h.url, 'GET', '/api/v1/credits', { key })).body;

  /** Waits until billing has settled every hold of the account (the event path is asynchronous). */
  const settled = (key: string) => eventually(() => credits(key), (balance) => balance.held === 0);

  it('success: the upstream output is copied into our storage and served from our content host', async () => {
    const { key } = await h.account('free', 100);
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: modelId('ok'), prompt: 'a red kite', type: 'TEXT_TO_IMAGE' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', error: null, credits_charged: PRICE });
    expect(res.body.output_url.startsWith(`${h.url}/cdn/`)).toBe(true);
    expect(res.body.output_url).not.toContain(new URL(upstream.url).host);

    const asset = await fetch(res.body.output_url);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await asset.arrayBuffer()).equals(upstream.png)).toBe(true);
    expect(await settled(key)).toMatchObject({ available: 100 - PRICE, held: 0 });

    const submit = upstream.requests.find((r) => r.method === 'POST' && r.headers['idempotency-key'] === res.body.id);
    expect(submit?.headers.authorization).toBe(`Bearer ${upstream.secret}`);
    expect(JSON.parse(submit?.body ?? '{}')).toMatchObject({ model: 'ok', prompt: 'a red kite', params: { width: 64, height: 64 } });
  });

  it('a JPEG output is stored as .jpg and served as image/jpeg, whatever type the upstream claimed', async () => {
    const { key } = await h.account('free', 100);
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: modelId('ok-jpeg'), prompt: 'a red kite', type: 'TEXT_TO_IMAGE' } });
    expect(res.body).toMatchObject({ status: 'completed' });
    expect(new URL(res.body.output_url).pathname).toMatch(/^\/cdn\/[0-9a-f]{2}\/[0-9a-f]{32}\.jpg$/);
    const asset = await fetch(res.body.output_url);
    expect(asset.headers.get('content-type')).toBe('image/jpeg');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=3600, immutable');
    expect(Buffer.from(await asset.arrayBuffer()).equals(upstream.jpeg)).toBe(true);
  });

  it.each<[string, UpstreamScenario]>([
    ['upstream timeout: submit never answers', 'submit-hang'],
    ['upstream timeout: the job never finishes', 'never-finishes'],
    ['5xx on submit', 'submit-500'],
    ['5xx on status', 'poll-503'],
    ['malformed answer: HTML instead of JSON', 'submit-html'],
    ['malformed answer: unknown status', 'status-unknown'],
    ['output URL answers 404', 'output-404'],
    ['output is not an image', 'output-html'],
    ['the upstream reports a failure', 'failed'],
  ])('%s: failed, sanitised error, no output, full refund', async (_label, scenario) => {
    const { key } = await h.account('free', 100);
    const res = await http(h.url, 'POST', '/api/v1/generate', {
      key,
      body: { model: modelId(scenario), prompt: 'a red kite', type: 'TEXT_TO_IMAGE' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', output_url: null, credits_charged: 0 });
    expect(typeof res.body.error).toBe('string');
    expect(sanitisationProblems(res.body.error, upstream)).toEqual([]);
    expect(res.text).not.toContain(upstream.secret);

    const read = await http(h.url, 'GET', `/api/v1/generations/${res.body.id}`, { key });
    expect(read.body).toEqual(res.body);
    expect(await settled(key)).toMatchObject({ available: 100, held: 0 });
  });
});
