import type { Engine, EngineOutput, EngineRequest } from '@gen/generation';

/**
 * A test engine that starts jobs but finishes none until the test opens the gate: jobs pile up in
 * the queue deterministically, and the order they start in is recorded.
 */
export class GateEngine implements Engine {
  readonly started: string[] = [];
  private waiting: Array<() => void> = [];
  private opened = false;

  constructor(readonly name: string) {}

  async generate(request: EngineRequest): Promise<EngineOutput[]> {
    this.started.push(request.jobId);
    if (!this.opened) {
      await new Promise<void>((resolve, reject) => {
        this.waiting.push(resolve);
        request.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
    }
    // A minimal valid WAV header is not needed: tests read the record, not the asset.
    return [{ data: Buffer.from('RIFF0000WAVE'), contentType: 'audio/wav', extension: 'wav' }];
  }

  open(): void {
    this.opened = true;
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  close(): void {
    this.opened = false;
  }
}
