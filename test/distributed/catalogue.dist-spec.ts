import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeReplicate, http, startFakeReplicate } from '@gen/testing';
import { runCli } from '../support/cli';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function within<T>(ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(100);
  }
}

/** Models in one generation replica's own copy of the catalogue (its gen_catalogue_models gauge). */
async function replicaModels(h: DistributedHarness, index: number): Promise<number> {
  const text = await (await fetch(`${h.httpUrl('generation', index)}/metrics`)).text();
  return [...text.matchAll(/^gen_catalogue_models\{[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/**
 * The catalogue managed with the CLI while a scaled deployment runs: two gateway and two generation
 * replicas all follow a change within 5 s, without a restart.
 */
describe('distributed: the model catalogue across replicas', () => {
  let h: DistributedHarness;
  let replicate: FakeReplicate;
  const folder = mkdtempSync(join(tmpdir(), 'gen-catalogue-'));

  beforeAll(async () => {
    replicate = await startFakeReplicate();
    h = await startDistributed({
      replicas: { gateway: 2, generation: 2 },
      // The fake provider is on 127.0.0.1, and its token comes from the environment (a Secret in Kubernetes).
      appEnv: { generation: { UPSTREAM_ALLOW_PRIVATE_NETWORKS: 'true', REPLICATE_API_TOKEN: replicate.token } },
    });
  });
  afterAll(async () => {
    await h?.close();
    await replicate?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const listed = async (url: string, key: string, id: string) =>
    ((await http(url, 'GET', '/api/v1/models', { key })).body.data as any[]).find((m) => m.id === id);

  it('models add reaches both generation replicas and both gateways within 5 s; submits through either are charged its price', async () => {
    const { key } = await h.account('pro', 200);
    expect(await replicaModels(h, 0)).toBe(6);
    expect(await replicaModels(h, 1)).toBe(6);
    const added = runCli(
      h.database.url,
      'models', 'add', '--id', 'dist-quick-1', '--name', 'Dist quick', '--type', 'TEXT_TO_IMAGE',
      '--credits', '3', '--minimum', '3', '--plan', 'free', '--sync', 'true', '--engine', '{"engine":"instant"}', '--json',
    );
    expect(added.stderr).toMatch(/^Database: \S+ \(DATABASE_URL\)\n$/); // only which database it used
    expect(added.code).toBe(0);
    expect(added.json).toMatchObject({ id: 'dist-quick-1', credits: 3, status: 'active', engine: { engine: 'instant' } });

    const started = Date.now();
    await within(5_000, async () => ((await replicaModels(h, 0)) === 7 && (await replicaModels(h, 1)) === 7 ? true : undefined));
    for (const url of h.urls) await within(5_000 - (Date.now() - started), () => listed(url, key, 'dist-quick-1'));

    // Submits land on either generation replica (a NATS queue group): every one is accepted.
    for (let i = 0; i < 6; i++) {
      const res = await http(h.urls[i % 2], 'POST', '/api/v1/generate', { key, body: { model: 'dist-quick-1', prompt: `fox ${i}`, type: 'TEXT_TO_IMAGE' } });
      expect(res.status).toBe(200);
      expect(res.body.credits_charged).toBe(3);
    }
  });

  it('a Replicate-bound model added with the CLI generates through either generation replica, paying one prediction per job', async () => {
    const { key } = await h.account('pro', 200);
    const binding = { engine: 'replicate', baseUrl: replicate.url, upstreamModel: 'fake/ok', tokenEnv: 'REPLICATE_API_TOKEN', outputOrigins: [replicate.cdnUrl] };
    const added = runCli(
      h.database.url,
      'models', 'add', '--id', 'dist-replicate-1', '--name', 'Dist Replicate', '--type', 'TEXT_TO_IMAGE',
      '--credits', '6', '--minimum', '6', '--plan', 'free', '--sync', 'true', '--engine', JSON.stringify(binding),
    );
    expect(added.stderr).toMatch(/^Database: \S+ \(DATABASE_URL\)\n$/); // only which database it used
    expect(added.code).toBe(0);
    await within(5_000, async () => ((await replicaModels(h, 0)) >= 8 && (await replicaModels(h, 1)) >= 8 ? true : undefined));
    for (const url of h.urls) await within(5_000, () => listed(url, key, 'dist-replicate-1'));

    const before = replicate.predictions.length;
    const records = [];
    for (let i = 0; i < 4; i++) {
      const res = await http(h.urls[i % 2], 'POST', '/api/v1/generate', { key, body: { model: 'dist-replicate-1', prompt: `a fox ${i}`, type: 'TEXT_TO_IMAGE' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'completed', credits_charged: 6 });
      records.push(res.body);
      const stored = await fetch(res.body.output_url);
      expect(stored.headers.get('content-type')).toBe('image/png');
    }
    expect(replicate.predictions.length - before).toBe(4);
    const refs = await h.query<{ upstream_ref: string }>(`SELECT upstream_ref FROM generation.jobs WHERE id = ANY($1::uuid[])`, [records.map((r) => r.id)]);
    expect(refs.every((r) => /^replicate:/.test(r.upstream_ref))).toBe(true);
  });

  it('a price update and a disable are seen by both gateways within 5 s', async () => {
    const { key } = await h.account('pro', 200);
    expect(runCli(h.database.url, 'models', 'update', '--id', 'dist-quick-1', '--credits', '8', '--minimum', '8').code).toBe(0);
    for (const url of h.urls) await within(5_000, async () => ((await listed(url, key, 'dist-quick-1'))?.credits === 8 ? true : undefined));
    const charged = await http(h.urls[1], 'POST', '/api/v1/generate', { key, body: { model: 'dist-quick-1', prompt: 'fox', type: 'TEXT_TO_IMAGE' } });
    expect(charged.body.credits_charged).toBe(8);

    expect(runCli(h.database.url, 'models', 'disable', '--id', 'dist-quick-1').code).toBe(0);
    for (const url of h.urls) {
      await within(5_000, async () => ((await listed(url, key, 'dist-quick-1'))?.available === false ? true : undefined));
      const refused = await http(url, 'POST', '/api/v1/generate', { key, body: { model: 'dist-quick-1', prompt: 'fox', type: 'TEXT_TO_IMAGE' } });
      expect(refused.status).toBe(422);
      expect(refused.body.error.message).toBe('model: "dist-quick-1" is not available: The operator has disabled this model.');
    }
  });

  it('models sync applies a whole file idempotently, and refuses an invalid one whole', async () => {
    const current = runCli(h.database.url, 'models', 'list', '--json');
    expect(current.code).toBe(0);
    const entries = (current.json as any[]).map(({ created_at: _c, updated_at: _u, ...entry }) => entry);
    const file = join(folder, 'catalogue.json');
    const catalogue = { models: [...entries.filter((e) => e.id !== 'tone-weaver-1'), { ...entries[0], id: 'dist-synced-1', name: 'Synced' }] };
    writeFileSync(file, JSON.stringify(catalogue));
    const first = runCli(h.database.url, 'models', 'sync', '--file', file, '--json');
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ added: ['dist-synced-1'], updated: [], disabled: ['tone-weaver-1'] });
    const second = runCli(h.database.url, 'models', 'sync', '--file', file, '--json');
    expect(second.json).toMatchObject({ added: [], updated: [], disabled: [] });

    writeFileSync(file, JSON.stringify({ models: [...catalogue.models, { ...entries[0], id: 'bad-1', credits: -2 }] }));
    const refused = runCli(h.database.url, 'models', 'sync', '--file', file);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('models[');
    expect(refused.stderr).toContain('("bad-1").credits must be an integer');
    const after = runCli(h.database.url, 'models', 'list', '--json').json as any[];
    expect(after.find((m) => m.id === 'bad-1')).toBeUndefined();
  });
});
