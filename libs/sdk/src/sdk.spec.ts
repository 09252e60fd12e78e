import { Webhook } from 'standardwebhooks';
import { parseRetryAfter, retryDelayMs, SseParser, verifyWebhook, WebhookVerificationError } from './index.js';
import { newWebhookSecret, signatureHeaders, standardSignatureHeaders } from '@gen/webhook-signature';

const body = JSON.stringify({
  event: 'generation.completed',
  id: '3f8e2a1c-7b4d-4e9a-9c61-0d5b2f7a8e13',
  status: 'completed',
  type: 'TEXT_TO_IMAGE',
  model: 'pixel-flux-1',
  output_url: 'https://api.example.com/cdn/9b/9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png',
  credits_charged: 4,
  error: null,
  created_at: '2026-11-23T17:40:00.112Z',
  completed_at: '2026-11-23T17:40:02.512Z',
});

const reasonOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 'accepted';
  } catch (error) {
    return error instanceof WebhookVerificationError ? error.reason : `threw ${String(error)}`;
  }
};

describe('verifyWebhook: the service scheme', () => {
  const secret = newWebhookSecret();
  const headers = () => ({ ...signatureHeaders({ secret, body }), 'X-Service-Delivery-Id': 'wh_4fQ9mZ2xLr7TbN1cVw8KpD3s', 'X-Service-Event': 'generation.completed' });

  it('accepts what the service signs, from a string, bytes or a fetch Headers, and types the event', async () => {
    const verified = await verifyWebhook({ payload: body, headers: headers(), secret });
    expect(verified).toMatchObject({ deliveryId: 'wh_4fQ9mZ2xLr7TbN1cVw8KpD3s', scheme: 'service', test: false });
    expect(verified.event.event === 'generation.completed' && verified.event.output_url).toContain('/cdn/');
    await expect(verifyWebhook({ payload: new TextEncoder().encode(body), headers: new Headers(headers()), secret })).resolves.toMatchObject({ scheme: 'service' });
  });

  it('matches the known answer of the webhooks guide', async () => {
    const known = '{"event":"generation.completed","id":"gen_01HZX3","status":"completed"}';
    const verified = await verifyWebhook({
      payload: known,
      headers: { 'x-service-timestamp': '1700000000', 'x-service-signature': 'sha256=3ca4443587f984604cabc525337d32bfaf5d0a43ffdbe5dce02c5821750f6016' },
      secret: 'whsec_K1a9Xq3mZp7Rt2Vw8Yb4Nc6Df0Gh5Js1',
      now: new Date(1700000000_000),
    });
    expect(verified.timestamp).toBe(1700000000);
  });

  it('refuses a changed body, another secret, a stale timestamp, a missing or malformed header, a parsed payload', async () => {
    expect(await reasonOf(verifyWebhook({ payload: body.replace('4', '5'), headers: headers(), secret }))).toBe('signature_mismatch');
    expect(await reasonOf(verifyWebhook({ payload: body, headers: headers(), secret: newWebhookSecret() }))).toBe('signature_mismatch');
    expect(await reasonOf(verifyWebhook({ payload: body, headers: headers(), secret, now: new Date(Date.now() + 301_000) }))).toBe('timestamp_out_of_tolerance');
    expect(await reasonOf(verifyWebhook({ payload: body, headers: headers(), secret, now: new Date(Date.now() + 100_000), toleranceSeconds: 60 }))).toBe(
      'timestamp_out_of_tolerance',
    );
    expect(await reasonOf(verifyWebhook({ payload: body, headers: { 'x-service-timestamp': '1' }, secret }))).toBe('missing_header');
    expect(await reasonOf(verifyWebhook({ payload: body, headers: { ...headers(), 'X-Service-Signature': 'sha256=ABC' }, secret }))).toBe('malformed_header');
    expect(await reasonOf(verifyWebhook({ payload: JSON.parse(body), headers: headers(), secret }))).toMatch(/^threw TypeError: payload: the raw request body/);
  });

  it('accepts any of several secrets', async () => {
    await expect(verifyWebhook({ payload: body, headers: headers(), secret: [newWebhookSecret(), secret] })).resolves.toMatchObject({ scheme: 'service' });
  });
});

describe('verifyWebhook: Standard Webhooks', () => {
  const secret = newWebhookSecret();

  it('accepts what the service signs, one signature or two (a rotation), and what the standardwebhooks package signs', async () => {
    const one = standardSignatureHeaders({ id: 'wh_a', secrets: [secret], body });
    await expect(verifyWebhook({ payload: body, headers: one, secret })).resolves.toMatchObject({ scheme: 'standard', deliveryId: 'wh_a' });
    const old = newWebhookSecret();
    const two = standardSignatureHeaders({ id: 'wh_b', secrets: [secret, old], body });
    for (const key of [secret, old]) await expect(verifyWebhook({ payload: body, headers: two, secret: key })).resolves.toMatchObject({ scheme: 'standard' });
    const theirs = new Webhook(secret).sign('msg_1', new Date(), body);
    await expect(
      verifyWebhook({ payload: body, headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': theirs }, secret }),
    ).resolves.toMatchObject({ deliveryId: 'msg_1' });
  });

  it('refuses a changed body or id, another secret, a stale timestamp, and a signature that is not v1', async () => {
    const headers = standardSignatureHeaders({ id: 'wh_c', secrets: [secret], body });
    expect(await reasonOf(verifyWebhook({ payload: `${body} `, headers, secret }))).toBe('signature_mismatch');
    expect(await reasonOf(verifyWebhook({ payload: body, headers: { ...headers, 'webhook-id': 'wh_d' }, secret }))).toBe('signature_mismatch');
    expect(await reasonOf(verifyWebhook({ payload: body, headers, secret: newWebhookSecret() }))).toBe('signature_mismatch');
    expect(await reasonOf(verifyWebhook({ payload: body, headers, secret, now: new Date(Date.now() - 400_000) }))).toBe('timestamp_out_of_tolerance');
    expect(await reasonOf(verifyWebhook({ payload: body, headers: { ...headers, 'webhook-signature': 'v2,abc' }, secret }))).toBe('malformed_header');
  });
});

describe('SseParser', () => {
  it('reads records split anywhere, with CRLF, comments, multi-line data, ids and retry', () => {
    const text = 'retry: 3000\r\n\r\n: keep-alive\n\nid: 1\nevent: queued\ndata: {"a":\ndata: 1}\n\nid: 2\revent: completed\rdata: {}\r\r';
    const parser = new SseParser();
    const records = [...text].flatMap((char) => parser.push(char));
    expect(records).toEqual([
      { event: 'message', data: '', id: null, retryMs: 3000 },
      { event: 'queued', data: '{"a":\n1}', id: '1', retryMs: null },
      { event: 'completed', data: '{}', id: '2', retryMs: null },
    ]);
  });
});

describe('retries', () => {
  it('honours Retry-After in seconds or as a date, capped at a minute; else backs off with jitter', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(Date.now() + 5_000).toUTCString())).toBeGreaterThanOrEqual(4);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(retryDelayMs(0, 7)).toBe(7_000);
    expect(retryDelayMs(0, 3600)).toBe(60_000);
    for (const attempt of [0, 1, 2, 10]) {
      const base = Math.min(500 * 2 ** attempt, 8_000);
      const delay = retryDelayMs(attempt, null);
      expect(delay).toBeGreaterThanOrEqual(base / 2);
      expect(delay).toBeLessThanOrEqual(base);
    }
  });
});
