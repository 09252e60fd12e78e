import { createPromptRng, hslToRgb } from './prompt-seed';

describe('createPromptRng', () => {
  const draw = (prompt: string, seed: number, salt = ''): number[] => {
    const rng = createPromptRng(prompt, seed, salt);
    return Array.from({ length: 8 }, () => rng.next());
  };

  it('is a pure function of prompt, seed and salt', () => {
    expect(draw('a cat', 1)).toEqual(draw('a cat', 1));
    expect(draw('a cat', 1)).not.toEqual(draw('a cat', 2));
    expect(draw('a cat', 1)).not.toEqual(draw('a cat!', 1));
    expect(draw('a cat', 1, 'image')).not.toEqual(draw('a cat', 1, 'video'));
  });

  it('stays within the requested ranges', () => {
    const rng = createPromptRng('ranges', 0);
    for (let i = 0; i < 1000; i++) {
      const f = rng.next();
      expect(f).toBeGreaterThanOrEqual(0);
      expect(f).toBeLessThan(1);
      const n = rng.int(3, 5);
      expect([3, 4, 5]).toContain(n);
      for (const c of rng.color()) expect(c >= 0 && c <= 255 && Number.isInteger(c)).toBe(true);
    }
  });
});

describe('hslToRgb', () => {
  it('maps primary hues', () => {
    expect(hslToRgb(0, 1, 0.5)).toEqual([255, 0, 0]);
    expect(hslToRgb(120, 1, 0.5)).toEqual([0, 255, 0]);
    expect(hslToRgb(240, 1, 0.5)).toEqual([0, 0, 255]);
    expect(hslToRgb(-120, 1, 0.5)).toEqual([0, 0, 255]);
  });
});
