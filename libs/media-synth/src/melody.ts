import type { PromptRng } from './prompt-seed';

/**
 * A short chord-backed melody synthesised from a prompt RNG: tempo, key, scale, timbre and the
 * note sequence all come from the prompt, so different prompts sound (and hash) different.
 * Returns mono float samples in -1..1 (peak-normalised to 0.8).
 */

const SCALES: readonly (readonly number[])[] = [
  [0, 2, 4, 5, 7, 9, 11], // major
  [0, 2, 3, 5, 7, 8, 10], // natural minor
  [0, 2, 3, 5, 7, 9, 10], // dorian
  [0, 2, 4, 7, 9], // major pentatonic
  [0, 3, 5, 7, 10], // minor pentatonic
];

export function synthesizeMelody(rng: PromptRng, sampleRate: number, totalSamples: number): Float32Array {
  const out = new Float32Array(totalSamples);
  const scale = rng.pick(SCALES);
  const rootMidi = rng.int(52, 64);
  const bpm = rng.int(80, 160);
  const noteSamples = Math.max(1, Math.round((sampleRate * 60) / bpm / 2)); // eighth notes
  // Timbre: relative weights of harmonics 1..4 and the decay rate of each note.
  const harmonics = [1, rng.range(0, 0.5), rng.range(0, 0.3), rng.range(0, 0.15)];
  const decay = rng.range(2, 6);
  const attack = Math.max(1, Math.round(sampleRate * 0.01));
  const release = Math.max(1, Math.round(sampleRate * 0.02));

  let degree = rng.int(0, scale.length - 1);
  for (let start = 0; start < totalSamples; start += noteSamples) {
    degree = Math.max(-scale.length, Math.min(2 * scale.length, degree + rng.int(-2, 2)));
    const rest = rng.next() < 0.1;
    if (rest) continue;
    // Melody note plus a quieter triad (scale degrees +2 and +4) underneath.
    const voices: Array<[number, number]> = [
      [midiOf(scale, rootMidi, degree), 0.6],
      [midiOf(scale, rootMidi - 12, degree), 0.25],
      [midiOf(scale, rootMidi - 12, degree + 2), 0.2],
      [midiOf(scale, rootMidi - 12, degree + 4), 0.2],
    ];
    const length = Math.min(noteSamples, totalSamples - start);
    for (const [midi, gain] of voices) {
      const w = (2 * Math.PI * 440 * Math.pow(2, (midi - 69) / 12)) / sampleRate;
      for (let i = 0; i < length; i++) {
        // Short linear attack/release avoids clicks; exponential decay gives a plucked feel.
        const env = Math.min(1, i / attack, (length - i) / release) * Math.exp((-decay * i) / sampleRate);
        let s = 0;
        for (let h = 0; h < harmonics.length; h++) s += (harmonics[h] as number) * Math.sin(w * (h + 1) * i);
        out[start + i] = (out[start + i] as number) + gain * env * s;
      }
    }
  }
  let peak = 0;
  for (const s of out) peak = Math.max(peak, Math.abs(s));
  if (peak > 0) for (let i = 0; i < out.length; i++) out[i] = ((out[i] as number) / peak) * 0.8;
  return out;
}

function midiOf(scale: readonly number[], root: number, degree: number): number {
  const n = scale.length;
  const octave = Math.floor(degree / n);
  return root + 12 * octave + (scale[((degree % n) + n) % n] as number);
}
