import OpenAI from 'openai';
import { http } from '@gen/testing';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

/**
 * The OpenAI-compatible images route with each service its own process: the gateway maps the
 * request by the catalogue's `openai` block (sent over NATS by generation), submits one generation,
 * and reads the image back from the shared storage for `b64_json`.
 */
describe('distributed: OpenAI-compatible images API', () => {
  let h: DistributedHarness;

  beforeAll(async () => {
    h = await startDistributed();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('one generation through the official openai client: b64_json of the stored output, listed and charged', async () => {
    const { key } = await h.account('free', 100);
    const client = new OpenAI({ apiKey: key, baseURL: `${h.url}/openai/v1`, maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toContain('pixel-flux-1');
    const result = await client.images.generate({ model: 'pixel-flux-1', prompt: 'a lighthouse at dusk', size: '512x512', response_format: 'b64_json' });
    expect(result.data).toHaveLength(1);
    const bytes = Buffer.from(result.data![0].b64_json!, 'base64');
    const [record] = (await http(h.url, 'GET', '/api/v1/generations', { key })).body.data;
    expect(record).toMatchObject({ model: 'pixel-flux-1', status: 'completed', credits_charged: 4 });
    expect(bytes.equals(Buffer.from(await (await fetch(record.output_url)).arrayBuffer()))).toBe(true);
    expect((await http(h.url, 'GET', '/api/v1/credits', { key })).body.available).toBe(96);
  });
});
