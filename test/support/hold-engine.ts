import type { Engine, EngineOutput, EngineRequest } from '@gen/generation';

/**
 * A test engine that holds every job until the test releases it, and records what happened to it:
 * started, aborted (a cancel reached the run), upstream-canceled (the runner asked the "provider"
 * to stop). Like a provider adapter it stores an upstream reference before waiting, and it reports
 * `progress` once started when given one.
 */
export class HoldEngine implements Engine {
  readonly started: string[] = [];
  readonly aborted: string[] = [];
  readonly upstreamCanceled: string[] = [];
  private readonly held = new Map<string, () => void>();
  /** Released before they reached the hold: they go straight through. */
  private readonly preReleased = new Set<string>();
  private readonly startWaiters = new Map<string, Array<() => void>>();

  constructor(
    readonly name: string,
    private readonly progress?: number,
  ) {}

  async generate(request: EngineRequest): Promise<EngineOutput[]> {
    this.started.push(request.jobId);
    for (const wake of this.startWaiters.get(request.jobId) ?? []) wake();
    this.startWaiters.delete(request.jobId);
    await request.saveUpstreamRef(`upstream-${request.jobId}`);
    if (this.progress !== undefined) request.reportProgress?.(this.progress);
    await new Promise<void>((resolve, reject) => {
      if (this.preReleased.delete(request.jobId)) return resolve();
      this.held.set(request.jobId, resolve);
      request.signal.addEventListener(
        'abort',
        () => {
          this.aborted.push(request.jobId);
          this.held.delete(request.jobId);
          reject(request.signal.reason);
        },
        { once: true },
      );
    });
    return [{ data: Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt '), contentType: 'audio/wav', extension: 'wav' }];
  }

  cancel(upstreamRef: string): Promise<boolean> {
    this.upstreamCanceled.push(upstreamRef);
    return Promise.resolve(true);
  }

  /** Resolves once the job has started here. */
  startedJob(jobId: string): Promise<void> {
    if (this.started.includes(jobId)) return Promise.resolve();
    return new Promise((resolve) => this.startWaiters.set(jobId, [...(this.startWaiters.get(jobId) ?? []), resolve]));
  }

  release(jobId: string): void {
    const resolve = this.held.get(jobId);
    if (!resolve) return void this.preReleased.add(jobId);
    this.held.delete(jobId);
    resolve();
  }

  releaseAll(): void {
    for (const id of [...this.held.keys()]) this.release(id);
  }
}
