import { spawn, spawnSync } from 'node:child_process';
import type { Engine, BufferedOutput, EngineRequest } from '../ports/engine';
import { EngineError } from '../ports/engine';
import { readNumberParam } from './engine-params';
import { beginGeneration } from './engine-runtime';

/** Largest WAV kept from espeak-ng (a 4,000-character prompt speaks for about 4 minutes: ~11 MB). */
const MAX_WAV_BYTES = 32 * 1024 * 1024;
const WAV_HEADER_BYTES = 44;

/**
 * Speech from the prompt with espeak-ng (Debian's `espeak-ng` package): the one built-in model that
 * truly follows the prompt, offline. The text goes through standard input (never the command line,
 * so a prompt cannot pass options) and is spoken literally (no SSML). Settings: `wordsPerMinute`
 * (80..450, default 175), `latencyMs`.
 */
export class VoiceEngine implements Engine {
  readonly name = 'voice';
  private availability?: string | null;

  constructor(private readonly program = 'espeak-ng') {}

  unavailableReason(): string | null {
    if (this.availability === undefined) {
      const probe = spawnSync(this.program, ['--version'], { stdio: 'ignore', timeout: 5_000 });
      this.availability =
        probe.error || probe.status !== 0
          ? 'Speech synthesis is not installed on this server: the operator installs espeak-ng (Debian: apt-get install espeak-ng).'
          : null;
    }
    return this.availability;
  }

  async generate(request: EngineRequest): Promise<BufferedOutput[]> {
    await beginGeneration(request);
    const unavailable = this.unavailableReason();
    if (unavailable) throw new EngineError(`${unavailable} Your credits were refunded.`);
    const wpm = readNumberParam(request.params, 'wordsPerMinute', 175, { min: 80, max: 450, integer: true });
    const wav = await this.speak(request.prompt, wpm, request.signal);
    return [{ data: wav, contentType: 'audio/wav', extension: 'wav' }];
  }

  private speak(text: string, wordsPerMinute: number, signal: AbortSignal): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const child = spawn(this.program, ['--stdin', '--stdout', '-b', '1', '-s', String(wordsPerMinute)], {
        stdio: ['pipe', 'pipe', 'pipe'],
        signal,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_WAV_BYTES) child.kill('SIGKILL');
        else chunks.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-500)));
      child.on('error', (error) => reject(signal.aborted ? signal.reason : error));
      child.on('close', (code) => {
        if (signal.aborted) return reject(signal.reason);
        if (size > MAX_WAV_BYTES) return reject(new EngineError('The prompt is too long to be spoken. Your credits were refunded.'));
        if (code !== 0) return reject(new Error(`espeak-ng exited with ${code}: ${stderr.trim()}`));
        try {
          resolve(withWavSizes(Buffer.concat(chunks, size)));
        } catch (error) {
          reject(error);
        }
      });
      child.stdin.on('error', () => undefined); // espeak-ng gone early: 'close' reports it
      child.stdin.end(text, 'utf8');
    });
  }
}

/**
 * espeak-ng streams to stdout without knowing the length, so its RIFF and data sizes are
 * placeholders (0x7ffff...). Writes the real sizes, so every player and parser reads the file.
 */
export function withWavSizes(wav: Buffer): Buffer {
  const isPcmWav =
    wav.length >= WAV_HEADER_BYTES &&
    wav.toString('latin1', 0, 4) === 'RIFF' &&
    wav.toString('latin1', 8, 12) === 'WAVE' &&
    wav.toString('latin1', 36, 40) === 'data';
  if (!isPcmWav) throw new Error('espeak-ng did not write a PCM WAV');
  wav.writeUInt32LE(wav.length - 8, 4);
  wav.writeUInt32LE(wav.length - WAV_HEADER_BYTES, 40);
  return wav;
}
