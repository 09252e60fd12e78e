import { addCatalogueModel, FakeReplicate, http, startFakeReplicate } from '@gen/testing';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Provider callbacks across processes (docs/operations/configure.md, "Provider callbacks"): two gateways and
 * two generation replicas. Jobs are submitted through the first gateway and parked by whichever
 * generation replica took them; the Replicate fake calls back, signed, through the second gateway (the
 * address PROVIDER_CALLBACK_BASE_URL names), whose callback crosses NATS to a generation replica that
 * verifies it and makes the job due in PostgreSQL, where a replica's scheduler checks and collects it.
 * The binding polls slowly (the fallback), so jobs finishing within seconds finished through their
 * callbacks.
 */
describe('distributed: a provider callback through a gateway wakes a job parked by a generation replica', () => {
  let h: DistributedHarness;
  let fake: FakeReplicate;
  const PRICE = 2;

  beforeAll(async () => {
    fake = await startFakeReplicate({ durationMs: 300 });
    h = await startDistributed({
      replicas: { gateway: 2, generation: 2 },
      appEnv: { generation: { UPSTREAM_ALLOW_PRIVATE_NETWORKS: 'true', REPLICATE_API_TOKEN: fake.token, CATALOGUE_REFRESH_MS: '200' } },
    });
  });
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  const metric = async (base: string, name: string, labels: Record<string, string>) => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  it('jobs finish through their callbacks, at most one status read each; forged callbacks are refused and counted', async () => {
    const { key } = await h.account('pro', 100);
    const listed = await addCatalogueModel((sql, params) => h.query(sql, params), h.url, key, {
      id: 'pixel-replicate-callbacks',
      type: 'TEXT_TO_IMAGE',
      credits: PRICE,
      synchronous: false,
      minPlan: 'free',
      engine: {
        engine: 'replicate',
        baseUrl: fake.url,
        upstreamModel: 'fake/ok',
        tokenEnv: 'REPLICATE_API_TOKEN',
        outputOrigins: [fake.cdnUrl],
        callbacks: true,
        // The fallback: the first check 30 s after the submit; the callbacks come after 0.3 s.
        pollIntervalMs: 1_000,
        maxPollIntervalMs: 30_000,
        timeouts: { totalMs: 60_000 },
      },
    });
    expect(listed).toMatchObject({ available: true });

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-replicate-callbacks', prompt: `a harbour in fog ${i}`, type: 'TEXT_TO_IMAGE' } });
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    const deadline = Date.now() + 15_000;
    for (;;) {
      const rows = await h.query<{ status: string }>('SELECT status FROM generation.jobs WHERE id = ANY($1::uuid[])', [ids]);
      if (rows.every((r) => r.status === 'completed')) break;
      if (Date.now() > deadline) throw new Error(`jobs not completed through their callbacks: ${JSON.stringify(rows)}\n${h.logs().slice(-4000)}`);
      await sleep(100);
    }
    for (const id of ids) expect((await http(h.url, 'GET', `/api/v1/generations/${id}`, { key })).body).toMatchObject({ status: 'completed', credits_charged: PRICE });

    // Every callback went to the second gateway and was accepted there.
    expect(fake.callbacks).toHaveLength(3);
    for (const c of fake.callbacks) {
      expect(c.url.startsWith(`${h.urls[1]}/provider-callbacks/replicate/`)).toBe(true);
      expect(c.status).toBe(200);
    }
    expect(fake.reads() / ids.length).toBeLessThanOrEqual(1);
    expect(await metric(h.urls[1], 'gen_provider_callbacks_verified_total', { provider: 'replicate' })).toBe(3);

    // A forged one (a signature under another secret) through the same gateway: 401, counted, nothing changes.
    const prediction = fake.predictions[0];
    const forged = await fake.sendWebhook(prediction.id, { secret: `whsec_${Buffer.alloc(24, 5).toString('base64')}` });
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.answer)).toMatchObject({ error: { code: 'unauthorized' } });
    expect(await metric(h.urls[1], 'gen_provider_callbacks_refused_total', { provider: 'replicate', reason: 'signature' })).toBe(1);
  });
});
