import type { Engine, BufferedOutput, EngineRequest } from '../ports/engine';
import { readNumberParam } from './engine-params';
import { beginGeneration, checkpoint } from './engine-runtime';
import { createPromptRng, encodeWavPcm16, synthesizeMelody } from '@gen/media-synth';

/**
 * Built-in offline audio engine: a mono 16-bit PCM WAV of a prompt-derived chord melody.
 * Params: `sampleRate` (integer, default 22050, 8000..48000), `durationSeconds` (default 2,
 * 0.1..60), `latencyMs`.
 */
export class AudioEngine implements Engine {
  readonly name = 'audio';

  async generate(request: EngineRequest): Promise<BufferedOutput[]> {
    await beginGeneration(request);
    const sampleRate = readNumberParam(request.params, 'sampleRate', 22050, { min: 8000, max: 48000, integer: true });
    const durationSeconds = readNumberParam(request.params, 'durationSeconds', 2, { min: 0.1, max: 60 });
    const totalSamples = Math.round(sampleRate * durationSeconds);

    const rng = createPromptRng(request.prompt, request.seed, 'audio');
    const wave = synthesizeMelody(rng, sampleRate, totalSamples);
    await checkpoint(request.signal);
    const pcm = new Int16Array(totalSamples);
    for (let i = 0; i < totalSamples; i++) pcm[i] = Math.round((wave[i] as number) * 32767);
    return [{ data: encodeWavPcm16(pcm, sampleRate), contentType: 'audio/wav', extension: 'wav', durationS: totalSamples / sampleRate }];
  }
}
