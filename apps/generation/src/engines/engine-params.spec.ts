import { readNumberParam } from './engine-params';

describe('readNumberParam', () => {
  const opts = { min: 10, max: 20, integer: true };
  it('falls back on missing or invalid values and clamps the rest', () => {
    expect(readNumberParam({}, 'x', 15, opts)).toBe(15);
    expect(readNumberParam({ x: 'abc' }, 'x', 15, opts)).toBe(15);
    expect(readNumberParam({ x: Number.NaN }, 'x', 15, opts)).toBe(15);
    expect(readNumberParam({ x: '12' }, 'x', 15, opts)).toBe(12);
    expect(readNumberParam({ x: 12.6 }, 'x', 15, opts)).toBe(13);
    expect(readNumberParam({ x: 5 }, 'x', 15, opts)).toBe(10);
    expect(readNumberParam({ x: 500 }, 'x', 15, opts)).toBe(20);
  });
});
