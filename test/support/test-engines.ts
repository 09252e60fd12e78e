import { Engine, EngineOutput, EngineRequest, InstantEngine } from '@gen/generation';
import { eventually } from '@gen/testing';

/**
 * An engine whose runs are held until the test releases them: "slow" without timing guesses. Each
 * run is visible while it waits (`waiting`), can be released in batches (later runs are held
 * again), and ends with the instant engine's valid asset of its type. (`gate-engine.ts` has a
 * simpler one that opens once for good and returns placeholder bytes.)
 */
export class HoldingEngine implements Engine {
  readonly name = 'holding';
  private readonly instant = new InstantEngine();
  private readonly pending = new Set<() => void>();
  private open = false;
  /** Runs started so far, by job id (a retried job appears twice). */
  readonly started: string[] = [];

  get waiting(): number {
    return this.pending.size;
  }

  async generate(request: EngineRequest): Promise<EngineOutput[]> {
    this.started.push(request.jobId);
    if (!this.open) {
      await new Promise<void>((resolve, reject) => {
        const release = () => {
          this.pending.delete(release);
          request.signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          this.pending.delete(release);
          reject(request.signal.reason);
        };
        this.pending.add(release);
        request.signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    return this.instant.generate(request);
  }

  /** Lets every waiting run finish (and, with `stayOpen`, every later one at once). */
  release(stayOpen = false): void {
    this.open = stayOpen;
    for (const release of [...this.pending]) release();
  }

  /** Waits until `count` runs wait at the gate (a claimed job's engine starts a moment later), then opens it. */
  async releaseWhenWaiting(count = 1, timeoutMs = 10_000): Promise<void> {
    const waiting = await eventually(async () => this.waiting, (n) => n >= count, timeoutMs, 10);
    if (waiting < count) throw new Error(`only ${waiting} of ${count} runs reached the gate`);
    this.release();
  }

  /** Makes later runs wait again. */
  shut(): void {
    this.open = false;
  }
}
