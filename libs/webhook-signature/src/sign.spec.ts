import { createHmac } from 'node:crypto';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, sign, signatureHeaders, verify } from '@gen/webhook-signature';

// Known-answer vectors. The expected hex digests were computed once, outside this code, with:
//
//   $ printf '%s' '1700000000.{"event":"generation.completed","id":"gen_01HZX3","status":"completed"}' \
//       | openssl dgst -sha256 -hmac 'whsec_K1a9Xq3mZp7Rt2Vw8Yb4Nc6Df0Gh5Js1' -r
//   3ca4443587f984604cabc525337d32bfaf5d0a43ffdbe5dce02c5821750f6016 *stdin
//
//   $ printf '%s' '1700000000.{"prompt":"café ☕"}' \
//       | openssl dgst -sha256 -hmac 'whsec_K1a9Xq3mZp7Rt2Vw8Yb4Nc6Df0Gh5Js1' -r
//   8f95f5ae70816b1de72fef2cdec9824b9af4a5fb0a919651c38c3e126bc2e3f2 *stdin
//
// (the shell, a UTF-8 locale, passes "café ☕" as its UTF-8 bytes: 63 61 66 c3 a9 20 e2 98 95).
const SECRET = 'whsec_K1a9Xq3mZp7Rt2Vw8Yb4Nc6Df0Gh5Js1';
const TIMESTAMP = 1_700_000_000;
const ASCII_BODY = '{"event":"generation.completed","id":"gen_01HZX3","status":"completed"}';
const ASCII_HEX = '3ca4443587f984604cabc525337d32bfaf5d0a43ffdbe5dce02c5821750f6016';
const UTF8_BODY = '{"prompt":"café ☕"}';
const UTF8_HEX = '8f95f5ae70816b1de72fef2cdec9824b9af4a5fb0a919651c38c3e126bc2e3f2';

describe('sign', () => {
  it.each([
    ['ASCII body', ASCII_BODY, ASCII_HEX],
    ['non-ASCII body (UTF-8 bytes)', UTF8_BODY, UTF8_HEX],
  ])('matches the openssl known answer for an %s', (_name, body, hex) => {
    expect(sign({ secret: SECRET, timestamp: TIMESTAMP, body })).toBe(`sha256=${hex}`);
    expect(sign({ secret: SECRET, timestamp: String(TIMESTAMP), body: Buffer.from(body, 'utf8') })).toBe(`sha256=${hex}`);
    expect(sign({ secret: Buffer.from(SECRET), timestamp: TIMESTAMP, body: new Uint8Array(Buffer.from(body)) })).toBe(
      `sha256=${hex}`,
    );
  });

  it('agrees with an independent HMAC computation over "<timestamp>.<body>"', () => {
    const body = Buffer.from([0x7b, 0x7d, 0x00, 0xff, 0x0a]); // arbitrary bytes, not valid UTF-8
    const independent = createHmac('sha256', SECRET)
      .update(Buffer.concat([Buffer.from(`${TIMESTAMP}.`), body]))
      .digest('hex');
    expect(sign({ secret: SECRET, timestamp: TIMESTAMP, body })).toBe(`sha256=${independent}`);
  });

  it('produces the documented format: sha256= and 64 lowercase hex digits', () => {
    expect(sign({ secret: 'x', timestamp: 0, body: '' })).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it.each([[-1], [1.5], [Number.NaN], ['12a'], ['-1'], [''], ['1e9']])('refuses timestamp %p', (timestamp) => {
    expect(() => sign({ secret: SECRET, timestamp, body: '{}' })).toThrow(RangeError);
  });

  it('refuses an empty secret and a body that is not raw bytes', () => {
    expect(() => sign({ secret: '', timestamp: TIMESTAMP, body: '{}' })).toThrow(TypeError);
    expect(() => sign({ secret: Buffer.alloc(0), timestamp: TIMESTAMP, body: '{}' })).toThrow(TypeError);
    expect(() => sign({ secret: SECRET, timestamp: TIMESTAMP, body: { a: 1 } as unknown as string })).toThrow(/raw request body/);
  });
});

describe('signatureHeaders', () => {
  it('builds the timestamp/signature pair for the given time, in whole seconds', () => {
    const headers = signatureHeaders({ secret: SECRET, body: ASCII_BODY, now: new Date(TIMESTAMP * 1000 + 999) });
    expect(headers).toEqual({
      [TIMESTAMP_HEADER]: '1700000000',
      [SIGNATURE_HEADER]: `sha256=${ASCII_HEX}`,
    });
  });

  it('defaults to the current time and round-trips through verify', () => {
    const before = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders({ secret: SECRET, body: ASCII_BODY });
    const timestamp = Number(headers[TIMESTAMP_HEADER]);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(verify(ASCII_BODY, headers, SECRET).timestamp).toBe(timestamp);
  });

  it('refuses an invalid date', () => {
    expect(() => signatureHeaders({ secret: SECRET, body: '{}', now: new Date(Number.NaN) })).toThrow(RangeError);
  });
});
