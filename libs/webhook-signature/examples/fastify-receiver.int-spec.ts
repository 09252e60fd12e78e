import { FastifyInstance } from 'fastify';
import {
  DELIVERY_ID_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  WEBHOOK_USER_AGENT,
  newDeliveryId,
  newWebhookSecret,
  signatureHeaders,
} from '@gen/webhook-signature';
import { GenerationEvent, buildReceiver } from './fastify-receiver';

const SECRET = newWebhookSecret();

const event: GenerationEvent = {
  event: 'generation.completed',
  id: 'gen_01HZX3',
  status: 'completed',
  type: 'TEXT_TO_IMAGE',
  model: 'demo-image',
  output_url: 'https://cdn.example.com/o/abc.png',
  credits_charged: 4,
  error: null,
  created_at: '2026-11-01T10:00:00.000Z',
  completed_at: '2026-11-01T10:00:02.000Z',
};

/** A request as the service sends it: raw JSON bytes and the six headers. */
function delivery(body = JSON.stringify(event), { secret = SECRET, deliveryId = newDeliveryId(), now = new Date() } = {}) {
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      [EVENT_HEADER]: event.event,
      [DELIVERY_ID_HEADER]: deliveryId,
      ...signatureHeaders({ secret, body, now }),
    } as Record<string, string>,
  };
}

describe('examples/fastify-receiver', () => {
  let app: FastifyInstance;
  let url: string;
  const received: Array<{ event: GenerationEvent; deliveryId: string }> = [];
  let failNext = false;

  beforeAll(async () => {
    app = buildReceiver({
      secrets: SECRET,
      onEvent: (e, deliveryId) => {
        if (failNext) {
          failNext = false;
          throw new Error('database unavailable');
        }
        received.push({ event: e, deliveryId });
      },
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    url = `${address}/webhooks/generation`;
  });

  afterAll(async () => {
    await app.close();
  });

  beforeEach(() => {
    received.length = 0;
  });

  const post = (req: { body: string; headers: Record<string, string> }): Promise<Response> =>
    fetch(url, { method: 'POST', body: req.body, headers: req.headers });

  it('accepts a correctly signed request with a 2xx and hands the event over once', async () => {
    const req = delivery();
    const res = await post(req);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true });
    expect(received).toEqual([{ event, deliveryId: req.headers[DELIVERY_ID_HEADER] }]);
  });

  it('refuses a tampered body with 400 and does not process it', async () => {
    const req = delivery();
    const tampered = req.body.replace('"credits_charged":4', '"credits_charged":0');
    expect(tampered).not.toBe(req.body);
    const res = await post({ ...req, body: tampered });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'signature_mismatch' });
    expect(received).toEqual([]);
  });

  it('verifies the raw bytes: pretty-printed JSON signed as sent is accepted', async () => {
    const res = await post(delivery(JSON.stringify(event, null, 2)));
    expect(res.status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it.each([
    ['wrong secret', () => delivery(undefined, { secret: newWebhookSecret() }), 'signature_mismatch'],
    ['stale timestamp', () => delivery(undefined, { now: new Date(Date.now() - 301_000) }), 'timestamp_out_of_tolerance'],
    [
      'no signature',
      () => {
        const req = delivery();
        delete req.headers[SIGNATURE_HEADER];
        return req;
      },
      'missing_header',
    ],
    [
      'malformed timestamp',
      () => {
        const req = delivery();
        req.headers[TIMESTAMP_HEADER] = 'yesterday';
        return req;
      },
      'malformed_header',
    ],
  ])('refuses %s with 400', async (_name, make, reason) => {
    const res = await post(make());
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: reason });
    expect(received).toEqual([]);
  });

  it('drops a second delivery with the same delivery id', async () => {
    const deliveryId = newDeliveryId();
    expect((await post(delivery(undefined, { deliveryId }))).status).toBe(200);
    // A retry is signed again, with a new timestamp, but carries the same delivery id.
    const retry = await post(delivery(undefined, { deliveryId, now: new Date(Date.now() + 2000) }));
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ received: true, duplicate: true });
    expect(received).toHaveLength(1);
  });

  it('processes the retry of a delivery whose handler failed', async () => {
    const deliveryId = newDeliveryId();
    failNext = true;
    expect((await post(delivery(undefined, { deliveryId }))).status).toBe(500);
    expect(received).toEqual([]);
    expect((await post(delivery(undefined, { deliveryId }))).status).toBe(200);
    expect(received).toHaveLength(1);
  });
});
