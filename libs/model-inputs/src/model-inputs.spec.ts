import { checkInputsSchema, checkMetadata, checkPriceMultipliers, InputsSchema, InputValidator, priceFor, pricingText } from './index';

const SCHEMA = {
  type: 'object',
  properties: {
    seed: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'Same seed, same picture.' },
    num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
    aspect_ratio: { type: 'string', enum: ['1:1', '16:9', '9:16'], default: '1:1' },
    guidance: { type: 'number', minimum: 0, maximum: 10 },
    negative_prompt: { type: 'string', maxLength: 200 },
    safe: { type: 'boolean', default: true },
    image: { type: 'string', format: 'uri' },
  },
  additionalProperties: false,
};

function schema(raw: unknown = SCHEMA): InputsSchema {
  const problems: string[] = [];
  const checked = checkInputsSchema(raw, 'inputs', problems);
  if (!checked) throw new Error(problems.join('\n'));
  return checked;
}

describe('inputs schema (operator side)', () => {
  it('accepts the supported subset and makes additionalProperties false explicit', () => {
    const { additionalProperties: _, ...withoutFalse } = SCHEMA;
    expect(schema(withoutFalse).additionalProperties).toBe(false);
    expect(Object.keys(schema().properties)).toEqual(Object.keys(SCHEMA.properties));
  });

  it.each<[string, unknown, RegExp]>([
    ['a keyword it does not enforce', { type: 'object', properties: { s: { type: 'string', pattern: '^a' } } }, /properties\.s\.pattern: keyword not supported/],
    ['a nested object', { type: 'object', properties: { o: { type: 'object' } } }, /properties\.o\.type must be one of string, integer, number, boolean/],
    ['oneOf at the top', { type: 'object', properties: {}, oneOf: [] }, /inputs\.oneOf: keyword not supported/],
    ['additionalProperties true', { type: 'object', properties: {}, additionalProperties: true }, /additionalProperties must be false/],
    ['a default out of range', { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 4, default: 9 } } }, /n\.default must be an integer from 1 to 4/],
    ['an enum of the wrong type', { type: 'object', properties: { n: { type: 'integer', enum: ['a'] } } }, /n\.enum: every value must be an integer/],
    ['minimum above maximum', { type: 'object', properties: { n: { type: 'number', minimum: 5, maximum: 1 } } }, /n\.minimum must not exceed maximum/],
    ['a format other than uri', { type: 'object', properties: { d: { type: 'string', format: 'date' } } }, /d\.format: only "uri"/],
    ['required naming nothing', { type: 'object', properties: {}, required: ['x'] }, /required: "x" is not in properties/],
    ['an input called prompt', { type: 'object', properties: { prompt: { type: 'string' } } }, /"prompt" is a field of the request itself/],
    ['not an object', [], /must be a JSON Schema object/],
  ])('refuses %s', (_name, raw, message) => {
    const problems: string[] = [];
    expect(checkInputsSchema(raw, 'inputs', problems)).toBeNull();
    expect(problems.join('\n')).toMatch(message);
  });
});

describe('InputValidator (customer side)', () => {
  const validator = new InputValidator();
  const s = schema();

  it('fills in defaults and keeps what was given', () => {
    expect(validator.check(s, { seed: 7 })).toEqual({ ok: true, input: { seed: 7, num_outputs: 1, aspect_ratio: '1:1', safe: true } });
    expect(validator.check(s, undefined)).toEqual({ ok: true, input: { num_outputs: 1, aspect_ratio: '1:1', safe: true } });
  });

  it('names each field with what it must be, in the schema words', () => {
    const result = validator.check(s, { seed: -1, num_outputs: 0, aspect_ratio: '4:3', guidance: 'high', safe: 'yes', nope: 1 });
    expect(result).toEqual({
      ok: false,
      errors: expect.arrayContaining([
        'input.seed: must be an integer from 0 to 2147483647',
        'input.num_outputs: must be an integer from 1 to 4',
        'input.aspect_ratio: must be one of "1:1", "16:9", "9:16"',
        'input.guidance: must be a number from 0 to 10',
        'input.safe: must be true or false',
        expect.stringMatching(/^input\.nope: is not an input of this model \(its inputs: seed, num_outputs/),
      ]),
    });
  });

  it.each<[string, unknown, string]>([
    ['a fraction for an integer', { seed: 1.5 }, 'input.seed: must be an integer from 0 to 2147483647'],
    ['1000 outputs', { num_outputs: 1000 }, 'input.num_outputs: must be an integer from 1 to 4'],
    ['a 5 MB string', { negative_prompt: 'x'.repeat(5 * 1024 * 1024) }, 'input.negative_prompt: must be a string of at most 200 characters'],
    ['a deep object', { seed: JSON.parse('['.repeat(500) + ']'.repeat(500)) }, 'input.seed: must be an integer from 0 to 2147483647'],
    ['a media value that is no URL', { image: 'file:///etc/passwd' }, 'input.image: must be an https URL or an upload (its id or url: POST /api/v1/uploads)'],
    ['a NUL character', { negative_prompt: 'a\u0000b' }, 'input.negative_prompt: must not contain NUL characters'],
    ['a list instead of an object', [1, 2], "input: must be an object of the model's inputs (see GET /api/v1/models/{id})"],
  ])('refuses %s', (_name, input, message) => {
    expect(validator.check(s, input)).toEqual({ ok: false, errors: [message] });
  });

  it('a model without inputs takes none', () => {
    expect(validator.check(schema({ type: 'object', properties: {} }), { seed: 7 })).toEqual({
      ok: false,
      errors: ['input.seed: is not an input of this model (it takes no inputs; see GET /api/v1/models/{id})'],
    });
  });

  it('requires what the schema requires', () => {
    const required = schema({ type: 'object', properties: { image: { type: 'string', format: 'uri' } }, required: ['image'] });
    expect(validator.check(required, {})).toEqual({ ok: false, errors: ['input.image: is required (must be an https URL or an upload (its id or url: POST /api/v1/uploads))'] });
    expect(validator.check(required, { image: 'https://cdn.example.com/fox.png' })).toEqual({ ok: true, input: { image: 'https://cdn.example.com/fox.png' } });
    for (const image of ['http://cdn.example.com/fox.png', 'https://user:pw@cdn.example.com/fox.png', 'upl_' + 'a'.repeat(24), 'https://', 'javascript:alert(1)']) {
      expect(validator.check(required, { image })).toEqual({ ok: false, errors: ['input.image: must be an https URL or an upload (its id or url: POST /api/v1/uploads)'] });
    }
  });
});

describe('prices that follow inputs', () => {
  it('multiplies exactly and rounds up', () => {
    expect(priceFor(4, ['num_outputs'], { num_outputs: 3 })).toBe(12);
    expect(priceFor(5, ['duration_s'], { duration_s: 2.5 })).toBe(13); // 12.5 up
    expect(priceFor(3, ['duration_s'], { duration_s: 0.1 })).toBe(1); // 0.3 up, no float drift
    expect(priceFor(7, ['a', 'b'], { a: 0.1, b: 0.2 })).toBe(1); // 0.14 up
    expect(priceFor(10, ['a'], { a: 0.3 })).toBe(3); // exactly 3, not 3.0000000000000004 rounded up to 4
    expect(priceFor(4, [], { num_outputs: 3 })).toBe(4);
    expect(pricingText(4, ['num_outputs'])).toMatch(/^4 credits × num_outputs .*rounded up/);
  });

  it('the catalogue refuses a multiplier that is not a bounded numeric input with a value', () => {
    const s = schema();
    const check = (raw: unknown, credits = 4) => {
      const problems: string[] = [];
      return { list: checkPriceMultipliers(raw, s, credits, 'price_multipliers', problems), problems };
    };
    expect(check(['num_outputs']).list).toEqual(['num_outputs']);
    expect(check(['aspect_ratio']).problems.join()).toMatch(/must be an integer or number input/);
    expect(check(['seed']).problems.join()).toMatch(/needs a default or to be required/);
    expect(check(['missing']).problems.join()).toMatch(/not an input of the model/);
    expect(check(['num_outputs'], 900_000_000).problems.join()).toMatch(/would exceed 1000000000 credits/);
  });
});

describe('metadata', () => {
  it("keeps up to 16 string keys and values, Stripe's rules", () => {
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'.repeat(500)]));
    expect(checkMetadata(sixteen)).toEqual({ ok: true, metadata: sixteen });
    expect(checkMetadata(undefined)).toEqual({ ok: true, metadata: {} });
  });

  it.each<[string, unknown, RegExp]>([
    ['17 keys', Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])), /^metadata: at most 16 keys \(got 17\)$/],
    ['a 600-character value', { order: 'x'.repeat(600) }, /^metadata\.order: must be at most 500 characters \(got 600\)$/],
    ['a 41-character key', { ['k'.repeat(41)]: 'v' }, /a key is 1 to 40 characters/],
    ['a number value', { n: 5 }, /^metadata\.n: must be a string/],
    ['a nested object', { n: { deep: {} } }, /^metadata\.n: must be a string/],
    ['a list', ['a'], /^metadata: must be an object/],
  ])('refuses %s', (_name, raw, message) => {
    const result = checkMetadata(raw);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.join('\n')).toMatch(message);
  });
});
