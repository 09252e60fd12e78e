import { WaveFile } from 'wavefile';
import { AudioEngine } from './audio.engine';
import type { EngineRequest } from '../ports/engine';

function request(overrides: Partial<EngineRequest> = {}): EngineRequest {
  return {
    jobId: 'job-1',
    modelId: 'test-audio',
    type: 'TEXT_TO_AUDIO',
    prompt: 'a calm piano lullaby',
    seed: 3,
    params: {},
    input: {},
    signal: new AbortController().signal,
    upstreamRef: null,
    saveUpstreamRef: () => Promise.resolve(),
    ...overrides,
  };
}

function decode(data: Buffer): { rate: number; bits: string; channels: number; samples: Float64Array } {
  const wav = new WaveFile();
  wav.fromBuffer(new Uint8Array(data));
  const fmt = wav.fmt as { sampleRate: number; numChannels: number; audioFormat: number };
  expect(fmt.audioFormat).toBe(1); // PCM
  return { rate: fmt.sampleRate, bits: wav.bitDepth, channels: fmt.numChannels, samples: wav.getSamples() };
}

describe('AudioEngine (checked with wavefile)', () => {
  const engine = new AudioEngine();

  it('produces a 2 s, 22050 Hz, 16-bit mono WAV by default with an audible signal', async () => {
    const [out] = await engine.generate(request());
    expect(out.contentType).toBe('audio/wav');
    expect(out.extension).toBe('wav');
    const { rate, bits, channels, samples } = decode(out.data);
    expect(rate).toBe(22050);
    expect(bits).toBe('16');
    expect(channels).toBe(1);
    expect(samples.length / rate).toBeCloseTo(2, 3);
    let peak = 0;
    for (const s of samples) peak = Math.max(peak, Math.abs(s));
    expect(peak).toBeGreaterThan(10_000);
    expect(peak).toBeLessThanOrEqual(32767);
  });

  it('honours sampleRate and durationSeconds', async () => {
    const [out] = await engine.generate(request({ params: { sampleRate: 44100, durationSeconds: 0.75 } }));
    const { rate, channels, samples } = decode(out.data);
    expect(rate).toBe(44100);
    expect(channels).toBe(1);
    expect(samples.length / rate).toBeCloseTo(0.75, 3);
  });

  it('is deterministic for prompt+seed and varies with prompt and seed', async () => {
    const [a] = await engine.generate(request());
    expect(a.data.equals((await engine.generate(request()))[0].data)).toBe(true);
    expect(a.data.equals((await engine.generate(request({ prompt: 'heavy metal drums' })))[0].data)).toBe(false);
    expect(a.data.equals((await engine.generate(request({ seed: 4 })))[0].data)).toBe(false);
  });

  it('rejects when aborted during simulated latency', async () => {
    const controller = new AbortController();
    const pending = engine.generate(request({ signal: controller.signal, params: { latencyMs: 5_000 } }));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
