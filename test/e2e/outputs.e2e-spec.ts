import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE, Engine, EngineError } from '@gen/generation';
import { createOutputStorage } from '@gen/storage';
import { ASSETS, eventually, http } from '@gen/testing';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** Fails every run, the way an engine reports a user-facing failure. */
const refusingEngine: Engine = {
  name: 'refusing',
  generate: () => Promise.reject(new EngineError('The prompt could not be rendered. Your credits were refunded.')),
};
/** Crashes every run (a bug, not a user-facing failure). */
const crashingEngine: Engine = {
  name: 'crashing',
  generate: () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'x') at /srv/engine.js:1")),
};

/** Outputs on the content host: types, caching, unguessable keys, and none for a failed job. */
describe('standalone: outputs on the content host', () => {
  let h: StandaloneHarness;
  let key: string;
  /** Streams its output into the storage itself, as provider adapters do with a download. */
  const prestoredEngine: Engine = {
    name: 'prestored',
    generate: async () => {
      const storage = createOutputStorage({ driver: 'local', dir: join(h.dataDir, 'outputs') });
      const stored = await storage.putStream((async function* () { yield ASSETS.png; })(), 'png');
      return [{ stored: { key: stored, bytes: ASSETS.png.length }, contentType: 'image/png', extension: 'png' }];
    },
  };

  beforeAll(async () => {
    h = await startStandaloneHarness(
      {},
      {
        engines: { refusing: refusingEngine, crashing: crashingEngine, prestored: prestoredEngine },
        models: [
          ...CATALOGUE,
          { ...CATALOGUE[0], id: 'refusing-image', engine: 'refusing' },
          { ...CATALOGUE[0], id: 'crashing-image', engine: 'crashing' },
          { ...CATALOGUE[0], id: 'prestored-image', engine: 'prestored' },
        ],
      },
    );
    ({ key } = await h.account('pro', 10_000));
  });
  afterAll(() => h?.close());

  const storedFiles = (): string[] => {
    const root = join(h.dataDir, 'outputs');
    return existsSync(root) ? readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((p) => p.includes('.')) : [];
  };

  async function generateAndWait(model: string, type: string, prompt = 'a lighthouse at dusk') {
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model, prompt, type } });
    expect([200, 202]).toContain(res.status);
    return eventually(
      async () => (await http(h.url, 'GET', `/api/v1/generations/${res.body.id}`, { key })).body,
      (r) => r.status === 'completed' || r.status === 'failed',
      30_000,
    );
  }

  const KEY = /^\/cdn\/([0-9a-f]{2})\/([0-9a-f]{32})\.([a-z0-9]+)$/;

  it.each([
    ['pixel-flux-1', 'TEXT_TO_IMAGE', 'image/png', 'png', (b: Buffer) => b.subarray(1, 4).toString('latin1') === 'PNG'],
    ['motion-lite-1', 'TEXT_TO_VIDEO', 'video/mp4', 'mp4', (b: Buffer) => b.subarray(4, 8).toString('latin1') === 'ftyp'],
    ['tone-weaver-1', 'TEXT_TO_AUDIO', 'audio/wav', 'wav', (b: Buffer) => b.subarray(8, 12).toString('latin1') === 'WAVE'],
    ['mesh-smith-1', 'TEXT_TO_3D', 'model/gltf-binary', 'glb', (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'glTF'],
  ])('%s (%s): served as %s with long, immutable caching', async (model, type, contentType, extension, looksRight) => {
    const record = await generateAndWait(model, type);
    expect(record.status).toBe('completed');
    const url = new URL(record.output_url);
    expect(`${url.origin}`).toBe(h.url);
    const match = KEY.exec(url.pathname);
    expect(match).not.toBeNull();
    expect(match?.[1]).toBe(match?.[2].slice(0, 2));
    expect(match?.[3]).toBe(extension);

    const asset = await fetch(record.output_url);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe(contentType);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=3600, immutable');
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    const body = Buffer.from(await asset.arrayBuffer());
    expect(Number(asset.headers.get('content-length'))).toBe(body.length);
    expect(looksRight(body)).toBe(true);
  });

  it('output paths are unguessable: 128 random bits, nothing of the job, the account or the prompt', async () => {
    const records = await Promise.all(Array.from({ length: 8 }, () => generateAndWait('pixel-flux-1', 'TEXT_TO_IMAGE', 'the same prompt')));
    const tokens = records.map((r) => KEY.exec(new URL(r.output_url).pathname)?.[2] as string);
    expect(new Set(tokens).size).toBe(records.length);
    for (const [i, r] of records.entries()) {
      expect(r.output_url).not.toContain(r.id);
      expect(r.output_url).not.toContain(r.id.replace(/-/g, ''));
      expect(r.output_url).not.toMatch(/same|prompt/);
      // Not sequential or time-ordered: tokens share no long prefix.
      if (i > 0) expect(tokens[i].slice(0, 8)).not.toBe(tokens[i - 1].slice(0, 8));
    }
  });

  it('forged, neighbouring and traversal paths are 404 not_found', async () => {
    const record = await generateAndWait('pixel-flux-1', 'TEXT_TO_IMAGE');
    const path = new URL(record.output_url).pathname;
    const last = path.at(-5) as string;
    const neighbour = `${path.slice(0, -5)}${last === '0' ? '1' : '0'}${path.slice(-4)}`;
    for (const probe of [
      neighbour,
      path.toUpperCase().replace('/CDN/', '/cdn/'),
      path.replace('.png', '.wav'),
      '/cdn/00/00000000000000000000000000000000.png',
      '/cdn/..%2f..%2fpg/postgresql.conf',
      '/cdn/%2e%2e/%2e%2e%2fpg%2fpostgresql.conf',
      '/cdn/pg/postgresql.conf',
    ]) {
      const res = await http(h.url, 'GET', probe);
      expect([probe, res.status]).toEqual([probe, 404]);
      if (res.body) expect(res.body.error.code).toBe('not_found');
    }
  });

  it('an output the engine already stored is the output of the job as is: same key, no second copy', async () => {
    const before = storedFiles();
    const record = await generateAndWait('prestored-image', 'TEXT_TO_IMAGE');
    expect(record.status).toBe('completed');
    const added = storedFiles().filter((p) => !before.includes(p));
    expect(added).toHaveLength(1);
    expect(new URL(record.output_url).pathname).toBe(`/cdn/${added[0].split(/[\\/]/).join('/')}`);
    const asset = await fetch(record.output_url);
    expect(Buffer.from(await asset.arrayBuffer()).equals(ASSETS.png)).toBe(true);
    const [job] = await h.running.databases.generation.query('SELECT outputs FROM jobs WHERE id = $1', [record.id]);
    expect(job.outputs).toEqual([{ key: added[0].split(/[\\/]/).join('/'), content_type: 'image/png', bytes: ASSETS.png.length }]);
  });

  it.each([
    ['an engine failure', 'refusing-image', 'The prompt could not be rendered. Your credits were refunded.'],
    ['an engine crash', 'crashing-image', 'The generation failed. Your credits were refunded; please try again.'],
  ])('a failed job (%s) has no output: no URL, no stored file', async (_label, model, message) => {
    const before = storedFiles();
    const record = await generateAndWait(model, 'TEXT_TO_IMAGE');
    expect(record).toMatchObject({ status: 'failed', output_url: null, credits_charged: 0, error: message });
    expect(storedFiles()).toEqual(before);
    const job = await h.running.databases.generation.query('SELECT output_key, output_content_type FROM jobs WHERE id = $1', [record.id]);
    expect(job).toEqual([{ output_key: null, output_content_type: null }]);
  });
});
