import { WaveFile } from 'wavefile';
import type { EngineRequest } from '../ports/engine';
import { EngineError } from '../ports/engine';
import { VoiceEngine } from './voice.engine';

function request(prompt: string, overrides: Partial<EngineRequest> = {}): EngineRequest {
  return {
    jobId: 'job-1',
    modelId: 'voice-1',
    type: 'TEXT_TO_AUDIO',
    prompt,
    seed: 1,
    params: {},
    input: {},
    signal: new AbortController().signal,
    upstreamRef: null,
    saveUpstreamRef: () => Promise.resolve(),
    ...overrides,
  };
}

/** Duration in seconds and RMS level (0..1) of a 16-bit mono WAV. */
function measure(data: Buffer): { seconds: number; rms: number; sampleRate: number } {
  const wav = new WaveFile(data);
  const fmt = wav.fmt as { sampleRate: number; numChannels: number; bitsPerSample: number };
  expect(fmt.numChannels).toBe(1);
  expect(fmt.bitsPerSample).toBe(16);
  const samples = wav.getSamples(false, Int16Array) as unknown as Int16Array;
  let sum = 0;
  for (const s of samples) sum += (s / 32768) ** 2;
  return { seconds: samples.length / fmt.sampleRate, rms: Math.sqrt(sum / samples.length), sampleRate: fmt.sampleRate };
}

/** Integration: the real espeak-ng (Debian's package; .ci/run installs it). */
describe('VoiceEngine (espeak-ng)', () => {
  const engine = new VoiceEngine();

  it('is available where espeak-ng is installed', () => {
    expect(engine.unavailableReason()).toBeNull();
  });

  it('speaks the prompt: a valid WAV with sound in it, whose length follows the prompt', async () => {
    const [short] = await engine.generate(request('A red fox.'));
    const [long] = await engine.generate(request('A red fox runs through a snowy forest at dawn, past the frozen lake and the old mill, and on into the hills.'));
    expect(short.contentType).toBe('audio/wav');
    expect(short.extension).toBe('wav');
    const a = measure(short.data);
    const b = measure(long.data);
    expect(a.rms).toBeGreaterThan(0.02); // speech, not silence
    expect(b.rms).toBeGreaterThan(0.02);
    expect(a.seconds).toBeGreaterThan(0.5);
    // Eight times the words: several times as long (pauses and pace keep it from being exactly 8x).
    expect(b.seconds / a.seconds).toBeGreaterThan(4);
    // The header's sizes are the real ones (espeak-ng writes placeholders when streaming).
    expect(short.data.readUInt32LE(4)).toBe(short.data.length - 8);
    expect(short.data.readUInt32LE(40)).toBe(short.data.length - 44);
  });

  it('follows wordsPerMinute', async () => {
    const text = 'the quick brown fox jumps over the lazy dog';
    const slow = measure((await engine.generate(request(text, { params: { wordsPerMinute: 100 } })))[0].data);
    const fast = measure((await engine.generate(request(text, { params: { wordsPerMinute: 300 } })))[0].data);
    expect(slow.seconds).toBeGreaterThan(fast.seconds * 1.8);
  });

  it('speaks a prompt that looks like an option instead of obeying it', async () => {
    const [output] = await engine.generate(request('--version -w /tmp/should-not-exist.wav'));
    expect(measure(output.data).seconds).toBeGreaterThan(1);
  });

  it('stops espeak-ng when the job is cancelled', async () => {
    const abort = new AbortController();
    const running = engine.generate(request('word '.repeat(800), { signal: abort.signal }));
    setTimeout(() => abort.abort(new Error('cancelled')), 20);
    await expect(running).rejects.toThrow('cancelled');
  });

  it('without espeak-ng: says why and how to install it, and fails a job with a user-facing message', async () => {
    const missing = new VoiceEngine('/nonexistent/espeak-ng');
    expect(missing.unavailableReason()).toContain('apt-get install espeak-ng');
    const error = await missing.generate(request('hello')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).userMessage).toContain('Your credits were refunded.');
  });
});
