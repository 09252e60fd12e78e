import fc from 'fast-check';
import { wireCopy } from './wire-copy';

/** What a value is after JSON.stringify and JSON.parse: the definition wireCopy follows. */
function overTheWire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

describe('wireCopy: what the wire makes of a value, in one copy', () => {
  it('equals the JSON round trip for any value JSON can write', () => {
    const values = fc.anything({
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
      maxDepth: 5,
    });
    fc.assert(
      fc.property(values, (value) => {
        if (value === undefined || JSON.stringify(value) === undefined) return;
        expect(wireCopy(value)).toStrictEqual(overTheWire(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('follows JSON on the cases it copies directly', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const value = { at, missing: undefined, fn: () => 1, list: [undefined, -0, 1.5, 'x', null, at], nested: { deep: [{ a: true }] }, negativeZero: -0 };
    const copied = wireCopy(value);
    expect(copied).toStrictEqual(overTheWire(value));
    expect(copied).toStrictEqual({ at: '2026-01-02T03:04:05.678Z', list: [null, 0, 1.5, 'x', null, '2026-01-02T03:04:05.678Z'], nested: { deep: [{ a: true }] }, negativeZero: 0 });
    expect(wireCopy(new Date(Number.NaN))).toBeNull();
    expect(wireCopy(undefined)).toBeUndefined();
  });

  it('leaves to JSON what JSON decides otherwise: toJSON, class instances, Buffers, NaN, a __proto__ key', () => {
    class Money {
      constructor(readonly cents: number) {}
    }
    const cases: unknown[] = [
      { price: { toJSON: () => 'twelve' } },
      { money: new Money(1200) },
      { bytes: Buffer.from('hi') },
      { n: Number.NaN, list: [Number.POSITIVE_INFINITY] },
      JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as unknown,
      { when: Object.assign(new Date(0), { toJSON: () => 'custom' }) },
    ];
    for (const value of cases) expect(wireCopy(value)).toStrictEqual(overTheWire(value));
    const proto = wireCopy(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('shares nothing with the original', () => {
    const original = { nested: { list: [1, { x: 1 }] } };
    const copied = wireCopy(original) as typeof original;
    (copied.nested.list[1] as { x: number }).x = 2;
    expect(original.nested.list[1]).toEqual({ x: 1 });
  });

  it('fails as JSON fails: a cycle, a BigInt', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => wireCopy(cycle)).toThrow(TypeError);
    expect(() => wireCopy({ big: BigInt(1) })).toThrow(TypeError);
  });
});
