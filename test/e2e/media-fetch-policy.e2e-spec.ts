import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import type { ModelDefinitionInput } from '@gen/generation';
import { http } from '@gen/testing';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const MEDIA_MODEL = testModel({
  id: 'media-policy-1',
  engine: 'instant',
  inputs: { type: 'object', properties: { image: { type: 'string', format: 'uri' } }, additionalProperties: false } as unknown as ModelDefinitionInput['inputs'],
});

/**
 * Media URLs have their own destination rules (docs/guide/uploads.md, "Media URLs"): an internal
 * host the operator allowed for webhooks is not thereby a place every customer may fetch from.
 */
describe('media fetches keep to MEDIA_FETCH_ALLOW_*, not the webhook allow-list', () => {
  let h: StandaloneHarness;
  let server: Server;
  let base: string;
  let requests = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    h = await startStandaloneHarness(
      {
        // The internal host is a webhook receiver the operator allowed...
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
        WEBHOOK_ALLOW_LIST: '127.0.0.1',
        // ...and media fetches have rules of their own, which do not name it.
        MEDIA_FETCH_ALLOW_HTTP: 'true',
        MEDIA_FETCH_ALLOW_PRIVATE_NETWORKS: 'false',
      },
      { models: [MEDIA_MODEL] },
    );
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('refuses a media URL on a host only the webhook allow-list names, and never connects to it', async () => {
    const { key } = await h.account('free', 100);
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: MEDIA_MODEL.id, prompt: 'x', type: 'TEXT_TO_IMAGE', input: { image: `${base}/fox.png` } } });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(/^input\.image: /);
    expect(requests).toBe(0);
    // The same host as a webhook URL passes the destination rules (refused only for this key's missing secret): the two lists are apart.
    const hooked = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: MEDIA_MODEL.id, prompt: 'x', type: 'TEXT_TO_IMAGE', webhook_url: `${base}/hook` } });
    expect(hooked.body.error.message).toMatch(/^webhook_url: this API key has no webhook signing secret/);
  });
});
