import {
  DELIVERY_ID_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  WebhookMalformedHeaderError,
  WebhookMissingHeaderError,
  WebhookSignatureError,
  WebhookSignatureErrorReason,
  WebhookSignatureMismatchError,
  WebhookTimestampOutOfToleranceError,
  sign,
  verify,
} from '@gen/webhook-signature';

const SECRET = 'whsec_K1a9Xq3mZp7Rt2Vw8Yb4Nc6Df0Gh5Js1';
const OTHER_SECRET = 'whsec_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp';
const NOW_S = 1_700_000_000;
const NOW = new Date(NOW_S * 1000);
/** As sent by the service: compact JSON, field order of the payload. */
const BODY = '{"event":"generation.completed","id":"gen_01HZX3","status":"completed","credits_charged":4}';

/** Headers of a request signed at `timestamp` with `secret`, in Node's lower-case form. */
function signed(body: string | Buffer = BODY, { timestamp = NOW_S, secret = SECRET } = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-service-event': 'generation.completed',
    'x-service-delivery-id': 'wh_AbCdEfGhIjKlMnOpQrStUvWx',
    'x-service-timestamp': String(timestamp),
    'x-service-signature': sign({ secret, timestamp, body }),
  };
}

/** Runs `fn`, expects it to throw a WebhookSignatureError, returns it. */
function rejection(fn: () => unknown): WebhookSignatureError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookSignatureError);
    return err as WebhookSignatureError;
  }
  throw new Error('expected verify() to throw');
}

describe('verify: accepted requests', () => {
  it('accepts a correctly signed request and returns timestamp, delivery id and event', () => {
    expect(verify(BODY, signed(), SECRET, { now: NOW })).toEqual({
      timestamp: NOW_S,
      deliveryId: 'wh_AbCdEfGhIjKlMnOpQrStUvWx',
      event: 'generation.completed',
    });
  });

  it('accepts the body as a Buffer or a string, signed either way', () => {
    const buffer = Buffer.from(BODY);
    expect(verify(buffer, signed(BODY), SECRET, { now: NOW }).timestamp).toBe(NOW_S);
    expect(verify(BODY, signed(buffer), SECRET, { now: NOW }).timestamp).toBe(NOW_S);
    expect(verify(new Uint8Array(buffer), signed(BODY), Buffer.from(SECRET), { now: NOW }).timestamp).toBe(NOW_S);
  });

  it('returns undefined delivery id and event when those (unsigned) headers are absent', () => {
    const { 'x-service-delivery-id': _d, 'x-service-event': _e, ...headers } = signed();
    expect(verify(BODY, headers, SECRET, { now: NOW })).toEqual({ timestamp: NOW_S, deliveryId: undefined, event: undefined });
  });

  it('uses the system clock by default', () => {
    const timestamp = Math.floor(Date.now() / 1000);
    expect(verify(BODY, signed(BODY, { timestamp }), SECRET).timestamp).toBe(timestamp);
  });
});

describe('verify: header names are case-insensitive', () => {
  const headers = signed();
  const recase = (fn: (name: string) => string): Record<string, string> =>
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [fn(name), value]));
  const canonical = (name: string): string => name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

  it.each([
    ['lower case (Node IncomingHttpHeaders)', recase((n) => n)],
    ['canonical case', recase(canonical)],
    ['upper case', recase((n) => n.toUpperCase())],
    ['mixed case', recase((n) => n.replace(/[aeiou]/g, (c) => c.toUpperCase()))],
  ])('%s', (_name, variant) => {
    expect(verify(BODY, variant, SECRET, { now: NOW }).deliveryId).toBe('wh_AbCdEfGhIjKlMnOpQrStUvWx');
  });

  it('reads a fetch Headers object', () => {
    expect(verify(BODY, new Headers(recase(canonical)), SECRET, { now: NOW }).event).toBe('generation.completed');
  });

  it('accepts a single-element array value (IncomingHttpHeaders allows string[])', () => {
    const arrays = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
    expect(verify(BODY, arrays, SECRET, { now: NOW }).timestamp).toBe(NOW_S);
  });
});

describe('verify: every rejection reason', () => {
  const without = (name: string): Record<string, string> => {
    const headers = signed();
    delete headers[name.toLowerCase()];
    return headers;
  };

  it.each([
    ['no timestamp header', without(TIMESTAMP_HEADER), TIMESTAMP_HEADER],
    ['no signature header', without(SIGNATURE_HEADER), SIGNATURE_HEADER],
    ['empty timestamp header', { ...signed(), 'x-service-timestamp': '' }, TIMESTAMP_HEADER],
    ['empty signature header', { ...signed(), 'x-service-signature': '' }, SIGNATURE_HEADER],
    ['undefined value', { ...signed(), 'x-service-signature': undefined }, SIGNATURE_HEADER],
    ['empty array', { ...signed(), 'x-service-timestamp': [] }, TIMESTAMP_HEADER],
    ['no headers at all', {}, TIMESTAMP_HEADER],
  ])('missing_header: %s', (_name, headers, header) => {
    const err = rejection(() => verify(BODY, headers, SECRET, { now: NOW }));
    expect(err).toBeInstanceOf(WebhookMissingHeaderError);
    expect(err.reason).toBe('missing_header');
    expect((err as WebhookMissingHeaderError).header).toBe(header);
  });

  const hex = sign({ secret: SECRET, timestamp: NOW_S, body: BODY }).slice('sha256='.length);
  it.each([
    ['timestamp with letters', { 'x-service-timestamp': '17000000OO' }, TIMESTAMP_HEADER],
    ['negative timestamp', { 'x-service-timestamp': '-1700000000' }, TIMESTAMP_HEADER],
    ['fractional timestamp', { 'x-service-timestamp': '1700000000.5' }, TIMESTAMP_HEADER],
    ['timestamp with spaces', { 'x-service-timestamp': ' 1700000000' }, TIMESTAMP_HEADER],
    ['ISO date timestamp', { 'x-service-timestamp': '2023-11-14T22:13:20Z' }, TIMESTAMP_HEADER],
    ['repeated timestamp', { 'x-service-timestamp': [String(NOW_S), String(NOW_S)] }, TIMESTAMP_HEADER],
    ['signature without prefix', { 'x-service-signature': hex }, SIGNATURE_HEADER],
    ['other algorithm prefix', { 'x-service-signature': `sha1=${hex}` }, SIGNATURE_HEADER],
    ['upper-case prefix', { 'x-service-signature': `SHA256=${hex}` }, SIGNATURE_HEADER],
    ['upper-case hex', { 'x-service-signature': `sha256=${hex.toUpperCase()}` }, SIGNATURE_HEADER],
    ['63 hex digits', { 'x-service-signature': `sha256=${hex.slice(1)}` }, SIGNATURE_HEADER],
    ['65 hex digits', { 'x-service-signature': `sha256=${hex}0` }, SIGNATURE_HEADER],
    ['non-hex digit', { 'x-service-signature': `sha256=${hex.slice(1)}g` }, SIGNATURE_HEADER],
    ['base64 digest', { 'x-service-signature': `sha256=${Buffer.from(hex, 'hex').toString('base64')}` }, SIGNATURE_HEADER],
    ['two signatures', { 'x-service-signature': `sha256=${hex}, sha256=${hex}` }, SIGNATURE_HEADER],
    ['repeated signature header', { 'x-service-signature': [`sha256=${hex}`, `sha256=${hex}`] }, SIGNATURE_HEADER],
    ['same header in two cases', { 'X-Service-Signature': `sha256=${hex}` }, SIGNATURE_HEADER],
  ])('malformed_header: %s', (_name, override, header) => {
    const err = rejection(() => verify(BODY, { ...signed(), ...override }, SECRET, { now: NOW }));
    expect(err).toBeInstanceOf(WebhookMalformedHeaderError);
    expect(err.reason).toBe('malformed_header');
    expect((err as WebhookMalformedHeaderError).header).toBe(header);
  });

  it.each([
    ['wrong secret', BODY, signed(BODY, { secret: OTHER_SECRET })],
    ['modified body', BODY.replace('"credits_charged":4', '"credits_charged":0'), signed()],
    ['body with a trailing newline', `${BODY}\n`, signed()],
    ['empty body', '', signed()],
    ['timestamp changed after signing', BODY, { ...signed(), 'x-service-timestamp': String(NOW_S + 1) }],
    ['a valid signature of another request', BODY, { ...signed(), 'x-service-signature': signed('{}')['x-service-signature']! }],
  ])('signature_mismatch: %s', (_name, body, headers) => {
    const err = rejection(() => verify(body, headers, SECRET, { now: NOW }));
    expect(err).toBeInstanceOf(WebhookSignatureMismatchError);
    expect(err.reason).toBe('signature_mismatch');
  });

  it('timestamp_out_of_tolerance: a correctly signed but old request', () => {
    const err = rejection(() => verify(BODY, signed(BODY, { timestamp: NOW_S - 3600 }), SECRET, { now: NOW }));
    expect(err).toBeInstanceOf(WebhookTimestampOutOfToleranceError);
    expect(err.reason).toBe('timestamp_out_of_tolerance');
    expect(err).toMatchObject({ timestamp: NOW_S - 3600, now: NOW_S, toleranceSeconds: 300 });
    expect(err.message).toBe('Webhook timestamp is 3600 s in the past; the tolerance is 300 s');
  });

  it('reports a tampered request as a mismatch even when its timestamp is also stale', () => {
    const headers = signed(BODY, { timestamp: NOW_S - 3600 });
    expect(rejection(() => verify(`${BODY} `, headers, SECRET, { now: NOW })).reason).toBe('signature_mismatch');
  });

  it('never puts the secret or the expected signature in an error message', () => {
    const headers = signed(BODY, { secret: OTHER_SECRET });
    const expected = sign({ secret: SECRET, timestamp: NOW_S, body: BODY });
    const err = rejection(() => verify(BODY, headers, SECRET, { now: NOW }));
    expect(err.message).not.toContain(SECRET);
    expect(err.message).not.toContain(expected.slice(7));
    expect(JSON.stringify(err)).not.toContain(expected.slice(7));
  });

  it('covers exactly the four documented reason codes', () => {
    const reasons: Record<WebhookSignatureErrorReason, true> = {
      missing_header: true,
      malformed_header: true,
      timestamp_out_of_tolerance: true,
      signature_mismatch: true,
    };
    expect(Object.keys(reasons)).toHaveLength(4);
  });
});

describe('verify: tolerance boundaries', () => {
  it.each([
    ['299 s in the past', -299, true],
    ['300 s in the past', -300, true],
    ['301 s in the past', -301, false],
    ['299 s in the future', 299, true],
    ['300 s in the future', 300, true],
    ['301 s in the future', 301, false],
    ['now', 0, true],
  ])('default 300 s: timestamp %s', (_name, offset, accepted) => {
    const call = (): unknown => verify(BODY, signed(BODY, { timestamp: NOW_S + offset }), SECRET, { now: NOW });
    if (accepted) expect(call).not.toThrow();
    else expect(rejection(call)).toBeInstanceOf(WebhookTimestampOutOfToleranceError);
  });

  it('truncates the receiver clock to whole seconds', () => {
    const headers = signed(BODY, { timestamp: NOW_S - 300 });
    expect(() => verify(BODY, headers, SECRET, { now: new Date(NOW_S * 1000 + 999) })).not.toThrow();
    expect(rejection(() => verify(BODY, headers, SECRET, { now: new Date(NOW_S * 1000 + 1000) })).reason).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it('honours a custom toleranceSeconds', () => {
    const headers = signed(BODY, { timestamp: NOW_S - 31 });
    expect(() => verify(BODY, headers, SECRET, { now: NOW, toleranceSeconds: 31 })).not.toThrow();
    expect(rejection(() => verify(BODY, headers, SECRET, { now: NOW, toleranceSeconds: 30 })).reason).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it('rejects a millisecond timestamp sent by mistake as out of tolerance', () => {
    const timestamp = NOW_S * 1000;
    expect(rejection(() => verify(BODY, signed(BODY, { timestamp }), SECRET, { now: NOW })).reason).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it.each([[-1], [Number.NaN]])('refuses toleranceSeconds %p', (toleranceSeconds) => {
    expect(() => verify(BODY, signed(), SECRET, { now: NOW, toleranceSeconds })).toThrow(RangeError);
  });
});

describe('verify: raw body versus re-serialised JSON', () => {
  // What a receiver gets if a framework parses the JSON and the handler calls JSON.stringify again.
  it.each([
    ['whitespace', '{ "event": "generation.completed", "id": "gen_1" }'],
    ['escapes', '{"event":"generation.completed","prompt":"caf\\u00e9 \\/ slash"}'],
    ['number formatting', '{"event":"generation.completed","credits_charged":4.0}'],
  ])('%s: the raw bytes verify, the re-serialised JSON does not', (_name, raw) => {
    const headers = signed(raw);
    expect(() => verify(Buffer.from(raw), headers, SECRET, { now: NOW })).not.toThrow();
    const reserialised = JSON.stringify(JSON.parse(raw) as unknown);
    expect(reserialised).not.toBe(raw);
    expect(rejection(() => verify(reserialised, headers, SECRET, { now: NOW })).reason).toBe('signature_mismatch');
  });

  it('field order: a payload rebuilt with its fields in another order fails', () => {
    const raw = '{"id":"gen_1","event":"generation.completed"}';
    const parsed = JSON.parse(raw) as { id: string; event: string };
    const rebuilt = JSON.stringify({ event: parsed.event, id: parsed.id });
    expect(rejection(() => verify(rebuilt, signed(raw), SECRET, { now: NOW })).reason).toBe('signature_mismatch');
  });

  it('throws a TypeError, not a verification error, for a parsed object', () => {
    expect(() => verify(JSON.parse(BODY) as unknown as string, signed(), SECRET, { now: NOW })).toThrow(TypeError);
  });
});

describe('verify: several secrets', () => {
  it('accepts a request signed with any of the listed secrets', () => {
    expect(() => verify(BODY, signed(BODY, { secret: SECRET }), [OTHER_SECRET, SECRET], { now: NOW })).not.toThrow();
    expect(() => verify(BODY, signed(BODY, { secret: OTHER_SECRET }), [OTHER_SECRET, SECRET], { now: NOW })).not.toThrow();
    expect(() => verify(BODY, signed(BODY, { secret: SECRET }), [Buffer.from(SECRET)], { now: NOW })).not.toThrow();
  });

  it('rejects a request signed with none of them', () => {
    const headers = signed(BODY, { secret: 'whsec_somebodyElse' });
    expect(rejection(() => verify(BODY, headers, [OTHER_SECRET, SECRET], { now: NOW })).reason).toBe('signature_mismatch');
  });

  it('compares against every secret in constant time, without stopping at the first match', () => {
    // The module object itself (verify.ts reads `timingSafeEqual` from it at call time), not an
    // `import * as` namespace copy, whose properties cannot be redefined.
    const spy = jest.spyOn(jest.requireActual<typeof import('node:crypto')>('node:crypto'), 'timingSafeEqual');
    try {
      verify(BODY, signed(BODY, { secret: SECRET }), [SECRET, OTHER_SECRET, 'whsec_third'], { now: NOW });
      expect(spy).toHaveBeenCalledTimes(3);
      for (const [a, b] of spy.mock.calls) expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses an empty list or an empty secret as a programming error', () => {
    expect(() => verify(BODY, signed(), [], { now: NOW })).toThrow(TypeError);
    expect(() => verify(BODY, signed(), [SECRET, ''], { now: NOW })).toThrow(TypeError);
  });
});

describe('header constants', () => {
  it('have the names of the spec', () => {
    expect([EVENT_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER, DELIVERY_ID_HEADER]).toEqual([
      'X-Service-Event',
      'X-Service-Timestamp',
      'X-Service-Signature',
      'X-Service-Delivery-Id',
    ]);
  });
});
