import { createHash } from 'node:crypto';

/**
 * Deterministic randomness derived from (prompt, seed). Every built-in engine draws all of its
 * "creative" choices from one of these streams, so the same prompt and seed always give the same
 * bytes while any change to the prompt changes the output. SHA-256 is used only as a well-mixed,
 * platform-independent way to turn arbitrary text into 128 bits of PRNG state.
 */

export type Rgb = [number, number, number];

export interface PromptRng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform float in [min, max). */
  range(min: number, max: number): number;
  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** A pleasant, saturated colour (channels 0..255). */
  color(): Rgb;
}

/** 128 bits of state from SHA-256(salt, seed, normalised prompt). `salt` separates engines' streams. */
export function promptSeedState(prompt: string, seed: number, salt = ''): [number, number, number, number] {
  const digest = createHash('sha256')
    .update(`${salt}\u0000${String(seed)}\u0000${prompt.normalize('NFC')}`, 'utf8')
    .digest();
  return [digest.readUInt32LE(0), digest.readUInt32LE(4), digest.readUInt32LE(8), digest.readUInt32LE(12)];
}

/** xoshiro128** (public domain, Blackman & Vigna): small, fast and good enough for visuals. */
function xoshiro128ss(state: [number, number, number, number]): () => number {
  let [a, b, c, d] = state;
  if ((a | b | c | d) === 0) a = 1; // the all-zero state is a fixed point
  return () => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result / 4294967296;
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

export function createPromptRng(prompt: string, seed: number, salt = ''): PromptRng {
  const next = xoshiro128ss(promptSeedState(prompt, seed, salt));
  const rng: PromptRng = {
    next,
    range: (min, max) => min + (max - min) * next(),
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick() from an empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    color: () => hslToRgb(next() * 360, 0.55 + 0.4 * next(), 0.4 + 0.25 * next()),
  };
  return rng;
}

/** HSL (h in degrees, s and l in 0..1) to 8-bit RGB. */
export function hslToRgb(h: number, s: number, l: number): Rgb {
  const hue = ((h % 360) + 360) % 360;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = l - c / 2;
  const sextants: Array<[number, number, number]> = [
    [c, x, 0],
    [x, c, 0],
    [0, c, x],
    [0, x, c],
    [x, 0, c],
    [c, 0, x],
  ];
  const [r, g, b] = sextants[Math.min(5, Math.floor(hue / 60))] as [number, number, number];
  return [toByte((r + m) * 255), toByte((g + m) * 255), toByte((b + m) * 255)];
}

export function toByte(value: number): number {
  return value <= 0 ? 0 : value >= 255 ? 255 : Math.round(value);
}
