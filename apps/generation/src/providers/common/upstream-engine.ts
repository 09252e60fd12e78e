import type { OutputStorage } from '@gen/storage';
import type { Engine, EngineOutput, EngineRequest, UpstreamCheck, UpstreamPending, UpstreamPhases } from '../../ports/engine';
import type { BindingSettings } from './binding-settings';
import { ClientSettings, Credential, inlineJsonLimit, UpstreamClient, UpstreamJob } from './upstream-client';
import { UpstreamCall } from './upstream-http';
import { decodeRef, encodeRef } from './upstream-ref';

/** A best-effort call asking the upstream to stop a job, and its name for the log. */
export interface CancelCall {
  call: Omit<UpstreamCall, 'maxBytes' | 'tooLarge'>;
  what: string;
}

/**
 * A provider adapter: its `UpstreamClient` (pool, credential, retries, output checks, sanitised
 * failures) built from the binding's settings, and its protocol in `run`.
 */
export abstract class UpstreamEngine<S extends ClientSettings> implements Engine {
  readonly waitsUpstream = true;
  protected readonly client: UpstreamClient;
  /** Largest JSON answer that may carry the output inline (a data URI, `b64_json`). */
  protected readonly inlineLimit: number;

  constructor(
    readonly name: string,
    protected readonly settings: S,
    credential: Credential | null,
    allowPrivateNetworks: boolean,
    /** Where output downloads are streamed (ProviderContext.storage); absent: read into memory. */
    storage?: OutputStorage,
  ) {
    this.client = new UpstreamClient(name, settings, credential, allowPrivateNetworks, storage);
    this.inlineLimit = inlineJsonLimit(settings.maxOutputBytes);
  }

  generate(request: EngineRequest): Promise<EngineOutput[]> {
    return this.client.run(request, (job) => this.run(job), this.cancel ? (ref) => this.cancel!(ref) : undefined);
  }

  cancel?(upstreamRef: string): Promise<boolean>;

  dispose(): Promise<void> {
    return this.client.close();
  }

  /** Every output the provider gave, in its order (at least one). */
  protected abstract run(job: UpstreamJob): Promise<EngineOutput[]>;
}

/**
 * The flow of every provider whose job is submitted once and then polled until it ends (Replicate,
 * fal, Cog, our `remote` protocol), written once: a job that finds an earlier attempt's reference
 * attaches to it and never submits; otherwise it submits and stores the reference before waiting on
 * anything (so a retry after a crash attaches instead of paying twice); then it polls every
 * `pollIntervalMs` while the state is pending, and hands the final state to `finish`. Each adapter
 * supplies the parts its protocol decides: the reference, the submit, the poll, what is pending, what
 * an ended job yields, and the cancel call.
 */
export abstract class SubmitAndPollEngine<S extends ClientSettings & PhaseSettings, Ref, State> extends UpstreamEngine<S> {
  /**
   * The same flow in the phases of a parked job (docs/design/jobs.md, "Waiting upstream"): `start` submits
   * and stores the reference (or, with one already stored, only attaches); `check` is one poll;
   * `collect` is `finish`. Absent where the protocol cannot be parked (Cog's synchronous call).
   */
  readonly phases?: UpstreamPhases = {
    binding: bindingKey(this.name, this.settings.baseUrl, this.credentialName()),
    totalTimeoutMs: this.settings.totalTimeoutMs,
    maxInFlight: this.settings.maxInFlight,
    maxRequestsPerSecond: this.settings.maxRequestsPerSecond,
    start: (request) => this.client.run(request, (job) => this.startPhase(job), (ref) => this.cancel(ref), 'start'),
    check: (request) => this.client.run(request, (job) => this.checkPhase(job), (ref) => this.cancel(ref), 'check'),
    collect: (request, ended) =>
      this.client.run(
        request,
        (job) => {
          job.upstreamFinished = true;
          return this.finish(this.refOf(job), ended.state as State, job);
        },
        (ref) => this.cancel(ref),
        'collect',
      ),
    // A job whose provider will call back is polled only as the fallback, at the slowest cadence (docs/operations/providers.md, "Callbacks").
    nextCheckMs: (checks, callbackExpected = false) =>
      callbackExpected && this.settings.callbacks === true
        ? Math.max(this.settings.pollIntervalMs, this.settings.maxPollIntervalMs)
        : nextCheckMs(this.settings.pollIntervalMs, this.settings.maxPollIntervalMs, checks),
  };

  /** The variable the credential is read from (`tokenEnv`), part of the binding's key; null without one. */
  protected credentialName(): string | null {
    return (this.settings as Partial<Pick<BindingSettings, 'tokenEnv'>>).tokenEnv ?? null;
  }

  /** The prefix of the references stored on our jobs (`replicate:<id>`), which says whose they are. */
  protected abstract readonly kind: string;

  /** The reference as stored on our job, after `<kind>:`. */
  protected abstract storeRef(ref: Ref): string;
  /** A stored reference read back: checked, since it is data from our database. */
  protected abstract loadRef(stored: string): Ref;
  /**
   * Starts the upstream job, with the retries the provider allows (a submit no provider deduplicates
   * is not repeated after it may have started); `state` when the answer already tells it.
   */
  protected abstract submit(job: UpstreamJob): Promise<{ ref: Ref; state?: State }>;
  /** The upstream job's state now, with the retries a read allows. */
  protected abstract poll(ref: Ref, job: UpstreamJob): Promise<State>;
  protected abstract isPending(state: State): boolean;
  /** What a job that ended yields: every output it gave, fetched into `EngineOutput`s in its order, or the failure it ended with. */
  protected abstract finish(ref: Ref, state: State, job: UpstreamJob): Promise<EngineOutput[]>;
  /**
   * What a pending state says of the job's progress (0 to 1) and its place in the provider's queue,
   * where the protocol tells (docs/guide/generations.md, "Where it stands"); nothing by default.
   */
  protected pendingDetail(_state: State): UpstreamPending {
    return {};
  }
  /** The call asking the upstream to stop a job, or null where the protocol (or binding) has none. */
  protected abstract cancelCall(ref: Ref): CancelCall | null;

  override async cancel(upstreamRef: string): Promise<boolean> {
    let ref: Ref;
    try {
      ref = this.loadRef(decodeRef(this.kind, upstreamRef));
    } catch {
      return false;
    }
    const cancel = this.cancelCall(ref);
    return cancel ? this.client.bestEffort(cancel.call, cancel.what) : false;
  }

  private refOf(job: UpstreamJob): Ref {
    if (job.request.upstreamRef === null) throw new Error('a parked job has no upstream reference');
    return this.loadRef(decodeRef(this.kind, job.request.upstreamRef));
  }

  private async startPhase(job: UpstreamJob): Promise<UpstreamCheck> {
    // An earlier attempt submitted it: attach (the caller checks it), never submit again.
    if (job.request.upstreamRef !== null) return { ended: false };
    const { ref, state } = await this.submit(job);
    await job.saveRef(encodeRef(this.kind, this.storeRef(ref)));
    if (state === undefined) return { ended: false };
    return this.isPending(state) ? { ended: false, ...this.pendingDetail(state) } : { ended: true, state };
  }

  private async checkPhase(job: UpstreamJob): Promise<UpstreamCheck> {
    const state = await this.poll(this.refOf(job), job);
    return this.isPending(state) ? { ended: false, ...this.pendingDetail(state) } : { ended: true, state };
  }

  protected async run(job: UpstreamJob): Promise<EngineOutput[]> {
    const { request } = job;
    let ref: Ref;
    let state: State | undefined;
    if (request.upstreamRef !== null) {
      // An earlier attempt submitted it: attach, never submit again.
      ref = this.loadRef(decodeRef(this.kind, request.upstreamRef));
      job.attach(request.upstreamRef);
    } else {
      ({ ref, state } = await this.submit(job));
      await job.saveRef(encodeRef(this.kind, this.storeRef(ref)));
    }
    state ??= await this.poll(ref, job);
    while (this.isPending(state)) {
      await job.pause(this.settings.pollIntervalMs);
      state = await this.poll(ref, job);
    }
    job.upstreamFinished = true;
    return this.finish(ref, state, job);
  }
}

/** What the phases read of a binding. */
export type PhaseSettings = Pick<BindingSettings, 'pollIntervalMs' | 'maxPollIntervalMs' | 'totalTimeoutMs' | 'maxInFlight' | 'maxRequestsPerSecond'> &
  Partial<Pick<BindingSettings, 'callbacks'>>;

/**
 * The key of a provider account, which the per-binding limits are held under: the adapter's kind (the
 * engine's name is `<kind>:<model id>`), the credential's variable and the API's base URL.
 */
export function bindingKey(engineName: string, baseUrl: string, credentialName: string | null): string {
  const kind = engineName.includes(':') ? engineName.slice(0, engineName.indexOf(':')) : engineName;
  return `${kind}:${credentialName ?? '-'}@${baseUrl}`;
}

/**
 * The wait before a parked job's next check: `pollIntervalMs` for the first three checks, then
 * doubled every three checks up to `maxPollIntervalMs` (1, 1, 1, 2, 2, 2, 4 ... s by default): most
 * jobs end within their first seconds, long ones (video) cost few reads.
 */
export function nextCheckMs(pollIntervalMs: number, maxPollIntervalMs: number, checks: number): number {
  const factor = 2 ** Math.min(20, Math.floor(Math.max(0, checks - 1) / 3));
  return Math.min(Math.max(pollIntervalMs, maxPollIntervalMs), pollIntervalMs * factor);
}
