import { randomUUID } from 'node:crypto';
import type { GenerationType } from '@gen/contracts';
import type { ModelDefinitionInput } from '@gen/generation';
import { BillingService } from '@gen/billing';
import { FakeCog, FakeFal, FakeReplicate, http, startFakeCog, startFakeFal, startFakeReplicate } from '@gen/testing';
import { ProviderCallbacks } from '../../apps/generation/src/callbacks/provider-callbacks.service';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/**
 * Provider callbacks end to end in standalone (docs/operations/providers.md, "Callbacks"): models bound with
 * `"callbacks": true` to the provider fakes, which call back the way each provider does (Replicate
 * and fal signed, Cog not), to the URL our submit gave them. Their polls are set far apart (the
 * fallback), so a job that finishes in a second finished because its callback woke it; and every
 * forged, replayed, late or malformed callback is refused in the envelope, changes nothing, and is
 * counted.
 */
describe('standalone: provider callbacks', () => {
  let replicate: FakeReplicate;
  let fal: FakeFal;
  let cog: FakeCog;
  let h: StandaloneHarness;
  const PRICE = 3;
  // With callbacks, a parked job is polled only every 30 s (the fallback); callbacks come within a second.
  const slowPolls = { pollIntervalMs: 1_000, maxPollIntervalMs: 30_000, timeouts: { connectMs: 500, requestMs: 2_000, totalMs: 60_000 } };

  const model = (id: string, type: GenerationType, engine: string, params: Record<string, unknown>): ModelDefinitionInput =>
    testModel({ id, name: `Callback model ${id}`, type, credits: PRICE, synchronous: false, engine, params: { ...params, ...slowPolls, callbacks: true } });

  beforeAll(async () => {
    [replicate, fal, cog] = await Promise.all([startFakeReplicate({ durationMs: 150 }), startFakeFal({ runMs: 150 }), startFakeCog({ concurrency: 8 })]);
    h = await startStandaloneHarness(
      { REPLICATE_API_TOKEN: replicate.token, FAL_KEY: fal.key },
      {
        models: [
          model('pixel-replicate-cb', 'TEXT_TO_IMAGE', 'replicate', { baseUrl: replicate.url, upstreamModel: 'fake/ok', tokenEnv: 'REPLICATE_API_TOKEN', outputOrigins: [replicate.cdnUrl] }),
          model('pixel-replicate-held', 'TEXT_TO_IMAGE', 'replicate', { baseUrl: replicate.url, upstreamModel: 'fake/never-finishes', tokenEnv: 'REPLICATE_API_TOKEN', outputOrigins: [replicate.cdnUrl] }),
          model('motion-fal-cb', 'TEXT_TO_VIDEO', 'fal', { baseUrl: fal.url, upstreamModel: 'fake-ai/video', tokenEnv: 'FAL_KEY', outputOrigins: [fal.cdnUrl], callbackJwksUrl: fal.jwksUrl }),
          model('pixel-cog-cb', 'TEXT_TO_IMAGE', 'cog', { baseUrl: cog.url, input: { duration_ms: 150 } }),
        ],
      },
    );
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([replicate, fal, cog].map((f) => f?.close()));
  });

  /** An account whose rate limit the tests' reads cannot reach, with room for several jobs at once. */
  const account = async () => {
    const created = await h.account('enterprise', 100);
    await h.running.app.get(BillingService).setPlan(created.accountId, 'enterprise', { rpm: 1_000_000, parallel: 20 });
    return created;
  };

  const submit = async (key: string, modelId: string, type: GenerationType) => {
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: modelId, prompt: 'a lighthouse at dusk', type } });
    expect(res.status).toBe(202);
    return res.body.id as string;
  };
  const read = async (key: string, id: string) => (await http(h.url, 'GET', `/api/v1/generations/${id}`, { key })).body;
  /** Waits for the job to be final, failing after `withinMs` (well under the 30 s of the fallback poll). */
  const finished = async (key: string, id: string, withinMs = 15_000) => {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const job = await read(key, id);
      if (job.status === 'completed' || job.status === 'failed') return job;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after ${withinMs} ms: its callback did not wake it`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const metric = async (name: string, labels: Record<string, string>) => {
    const text = await (await fetch(`${h.url}/metrics`)).text();
    const selector = Object.entries(labels)
      .map(([k, v]) => `${k}="${v}"`)
      .join(',');
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    if (!line) return 0;
    expect(line).toContain(selector.split(',')[0]);
    return Number(line.split(' ').at(-1));
  };
  const callbackUrl = (jobId: string, provider: string) => h.running.app.get(ProviderCallbacks).urlFor(jobId, provider) as string;
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then(async (res) => ({ status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } }));

  describe('a job waiting on its provider finishes when the provider calls back, not at the slow poll', () => {
    it('replicate: 6 jobs complete within seconds, charged, with at most one status read each on average', async () => {
      const { key } = await account();
      const readsBefore = replicate.reads();
      const callbacksBefore = replicate.callbacks.length;
      const ids = await Promise.all(Array.from({ length: 6 }, () => submit(key, 'pixel-replicate-cb', 'TEXT_TO_IMAGE')));
      const jobs = await Promise.all(ids.map((id) => finished(key, id)));
      for (const job of jobs) expect(job).toMatchObject({ status: 'completed', credits_charged: PRICE });
      const sent = replicate.callbacks.slice(callbacksBefore);
      expect(sent).toHaveLength(6);
      for (const c of sent) {
        expect(c.status).toBe(200);
        expect(c.url.startsWith(`${h.url}/provider-callbacks/replicate/`)).toBe(true);
      }
      // The callback only woke each job: its result was read from the API (one status read), never taken from the callback.
      expect((replicate.reads() - readsBefore) / ids.length).toBeLessThanOrEqual(1);
      const creates = replicate.calls('POST', /predictions$/).slice(-6).map((r) => JSON.parse(r.body) as Record<string, unknown>);
      for (const body of creates) expect(body.webhook_events_filter).toEqual(['completed']);
    });

    it('fal: a video job completes within seconds through its signed callback (fal_webhook)', async () => {
      const { key } = await account();
      const readsBefore = fal.reads();
      const id = await submit(key, 'motion-fal-cb', 'TEXT_TO_VIDEO');
      expect(await finished(key, id)).toMatchObject({ status: 'completed', credits_charged: PRICE });
      expect(fal.callbacks.at(-1)).toMatchObject({ status: 200 });
      expect(fal.reads() - readsBefore).toBeLessThanOrEqual(1);
    });

    it("cog: the prediction's webhook reaches the route (unsigned: the token is the proof) and the job completes", async () => {
      const { key } = await account();
      const id = await submit(key, 'pixel-cog-cb', 'TEXT_TO_IMAGE');
      expect(await finished(key, id)).toMatchObject({ status: 'completed', credits_charged: PRICE });
      const put = cog.calls('PUT', /^\/predictions\//).at(-1)!;
      expect(JSON.parse(put.body)).toMatchObject({ webhook: expect.stringContaining('/provider-callbacks/cog/'), webhook_events_filter: ['completed'] });
      const deadline = Date.now() + 3_000;
      while (cog.callbacks.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // Whether it found the job parked or already collected, the answer is one we chose (200, or 409 in the envelope).
      expect(cog.callbacks.length).toBeGreaterThanOrEqual(1);
      for (const c of cog.callbacks) expect([200, 409]).toContain(c.status);
    });
  });

  describe('forged, replayed, late and malformed callbacks are refused in the envelope and change nothing', () => {
    let key: string;
    let jobId: string;
    let url: string;
    let predictionId: string;

    beforeAll(async () => {
      ({ key } = await account());
      // A job parked on a prediction that never ends: every callback below is about a live, waiting job.
      jobId = await submit(key, 'pixel-replicate-held', 'TEXT_TO_IMAGE');
      const deadline = Date.now() + 5_000;
      while (!replicate.predictions.some((p) => p.webhook?.includes(callbackUrl(jobId, 'replicate').split('/').at(-1)!))) {
        if (Date.now() > deadline) throw new Error('the prediction was not created');
        await new Promise((r) => setTimeout(r, 20));
      }
      url = callbackUrl(jobId, 'replicate');
      predictionId = replicate.predictions.find((p) => p.webhook === url)!.id;
    });

    const unchanged = async () => {
      const job = await read(key, jobId);
      expect(job).toMatchObject({ status: 'processing', output_url: null, credits_charged: 0 });
    };

    it('a token that is not ours (forged, or another provider\'s), or an unknown provider: 404', async () => {
      const before = await metric('gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'token' });
      const forged = `${h.url}/provider-callbacks/replicate/${randomUUID().replace(/-/g, '')}${'A'.repeat(32)}`;
      expect(await post(forged, '{}')).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'No callback is expected at this URL.' } } });
      expect(await post(url.replace('/replicate/', '/fal/'), '{}')).toMatchObject({ status: 404 });
      expect(await post(url.replace('/replicate/', '/nope/'), '{}')).toMatchObject({ status: 404 });
      expect(await metric('gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'token' })).toBe(before + 1);
      expect(await metric('gen_provider_callbacks_refused_total', { provider: 'unknown', reason: 'token' })).toBeGreaterThanOrEqual(1);
      await unchanged();
    });

    it('a valid token for a job that does not exist: 404', async () => {
      expect(await post(callbackUrl(randomUUID(), 'replicate'), '{}')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
      expect(await metric('gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'unknown_job' })).toBeGreaterThanOrEqual(1);
    });

    it('a wrong signature, or none: 401', async () => {
      const wrong = await replicate.sendWebhook(predictionId, { secret: `whsec_${Buffer.alloc(24, 3).toString('base64')}` });
      expect(wrong.status).toBe(401);
      expect(JSON.parse(wrong.answer)).toMatchObject({ error: { code: 'unauthorized' } });
      expect(await post(url, JSON.stringify({ id: predictionId, status: 'succeeded' }))).toMatchObject({ status: 401 });
      expect(await metric('gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'signature' })).toBeGreaterThanOrEqual(2);
      await unchanged();
    });

    it('signed too long ago (a late or replayed delivery): 401', async () => {
      const late = await replicate.sendWebhook(predictionId, { timestamp: new Date(Date.now() - 10 * 60_000) });
      expect(late.status).toBe(401);
      expect(JSON.parse(late.answer).error.message).toMatch(/timestamp/);
      expect(await metric('gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'timestamp' })).toBeGreaterThanOrEqual(1);
      await unchanged();
    });

    it('a body of 10 MB: 413, before anything is forwarded', async () => {
      const huge = await post(url, JSON.stringify({ id: predictionId, logs: 'x'.repeat(10 * 1024 * 1024) }));
      expect(huge).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
      expect(await metric('gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'too_large' })).toBeGreaterThanOrEqual(1);
      await unchanged();
    });

    it('deep JSON, or not JSON at all: 400', async () => {
      expect(await post(url, '['.repeat(5_000) + ']'.repeat(5_000))).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } });
      expect(await post(url, '{"id": ')).toMatchObject({ status: 400 });
      expect(await metric('gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'bad_body' })).toBeGreaterThanOrEqual(2);
      await unchanged();
    });

    it("a validly signed callback about another prediction than the job's: 409", async () => {
      const other = replicate.predictions.find((p) => p.id !== predictionId)!;
      const res = await replicate.sendWebhook(other.id, { url });
      expect(res.status).toBe(409);
      expect(JSON.parse(res.answer).error.message).toMatch(/another upstream job/);
      await unchanged();
    });

    it('the provider resending a delivery that already woke the job: 409, and the job is checked once', async () => {
      const readsBefore = replicate.reads();
      const first = await replicate.sendWebhook(predictionId, { webhookId: 'msg_resent' });
      expect(first.status).toBe(200);
      const again = await replicate.sendWebhook(predictionId, { webhookId: 'msg_resent' });
      expect(again.status).toBe(409);
      // Woken once: the prediction, still running, was read, and the job parked again.
      const deadline = Date.now() + 10_000;
      while (replicate.reads() === readsBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 300));
      expect(replicate.reads() - readsBefore).toBe(1);
      await unchanged();
      expect(await metric('gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'replayed' })).toBeGreaterThanOrEqual(1);
    });

    it('a callback for a job that already finished: 409, nothing changes', async () => {
      const { key: other } = await account();
      const id = await submit(other, 'pixel-replicate-cb', 'TEXT_TO_IMAGE');
      const done = await finished(other, id);
      const prediction = replicate.predictions.find((p) => p.webhook === callbackUrl(id, 'replicate'))!;
      const res = await replicate.sendWebhook(prediction.id);
      expect(res.status).toBe(409);
      expect(JSON.parse(res.answer).error.message).toMatch(/already finished/);
      expect(await read(other, id)).toEqual(done);
      expect(await metric('gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'finished' })).toBeGreaterThanOrEqual(1);
    });

    it('every callback is counted as received, the verified ones as verified', async () => {
      expect(await metric('gen_provider_callbacks_received_total', { provider: 'replicate' })).toBeGreaterThanOrEqual(15);
      expect(await metric('gen_provider_callbacks_verified_total', { provider: 'replicate' })).toBeGreaterThanOrEqual(7);
      expect(await metric('gen_provider_callbacks_verified_total', { provider: 'fal' })).toBeGreaterThanOrEqual(1);
    });
  });
});
