import type { OutputStorage } from '@gen/storage';
import { Logger } from '@nestjs/common';
import { type Engine, type EngineOutput, type EngineRequest, UpstreamNotNow } from '../../ports/engine';
import { delay } from '../../engines/engine-runtime';
import type { ProviderContext } from '../../ports/engine-kind';
import type { BindingSettings } from './binding-settings';
import { OutputFetcher, USER_AGENT } from './output-fetch';
import { toEngineError, UpstreamFailure } from './upstream-failure';
import { UpstreamCall, UpstreamHttp } from './upstream-http';

/** Largest JSON answer of a submit or status call that carries no output inline. */
export const MAX_JSON_BYTES = 1024 * 1024;
/**
 * Largest JSON answer that may carry the output inline (a data URI, `b64_json`): the output's own
 * limit in base64, plus room for the rest of the answer.
 */
export function inlineJsonLimit(maxOutputBytes: number): number {
  return Math.ceil((maxOutputBytes * 4) / 3) + MAX_JSON_BYTES;
}
/** Most outputs one generation may have (OpenAI's `n` goes to 10, Replicate's `num_outputs` to 4 on most models). */
export const MAX_OUTPUTS = 16;
/** A best-effort cancel never takes longer than this. */
const CANCEL_TIMEOUT_MS = 5_000;

export interface Credential {
  header: string;
  /** The whole header value (`Bearer r8_...`): sent to the API's own origin only, never logged. */
  value: string;
  /** The secret alone, scrubbed from anything logged. */
  secret: string;
}

export type ClientSettings = Pick<
  BindingSettings,
  'baseUrl' | 'connectTimeoutMs' | 'requestTimeoutMs' | 'totalTimeoutMs' | 'retries' | 'maxOutputBytes' | 'outputOrigins'
>;

/**
 * What every provider adapter shares (docs/operations/providers.md, "Models and providers"): one connection pool
 * to the provider with the destination policy, the credential sent to the API's own origin only,
 * retries with backoff that honour `Retry-After` within the whole-generation deadline, the output
 * fetched with origin, size and file-type checks, failures mapped to the fixed user messages, details
 * logged for the operator with the credential scrubbed, and a best-effort cancel of the upstream job
 * when we give up on it. Each adapter (replicate, fal, cog, openai-images, remote) only speaks its
 * provider's protocol inside `run`.
 */
export class UpstreamClient {
  readonly http: UpstreamHttp;
  readonly output: OutputFetcher;
  readonly apiOrigin: string;
  private readonly logger = new Logger('UpstreamEngine');

  constructor(
    readonly name: string,
    readonly settings: ClientSettings,
    private readonly credential: Credential | null,
    allowPrivateNetworks: boolean,
    storage?: OutputStorage,
  ) {
    this.http = new UpstreamHttp({
      connectTimeoutMs: settings.connectTimeoutMs,
      requestTimeoutMs: settings.requestTimeoutMs,
      allowPrivateNetworks,
    });
    this.apiOrigin = new URL(settings.baseUrl).origin;
    this.output = new OutputFetcher(this.http, {
      apiOrigin: this.apiOrigin,
      apiBase: settings.baseUrl,
      outputOrigins: settings.outputOrigins,
      maxOutputBytes: settings.maxOutputBytes,
      apiHeaders: (accept) => this.apiHeaders(accept),
    }, storage);
  }

  /** `{baseUrl}{path}`; `path` starts with `/` and has its variable parts already encoded. */
  apiUrl(path: string): URL {
    return new URL(this.settings.baseUrl + path);
  }

  /** Headers of a call to the API's own origin, credential included. */
  apiHeaders(accept = 'application/json', extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { accept, 'user-agent': USER_AGENT, ...extra };
    if (this.credential) headers[this.credential.header.toLowerCase()] = this.credential.value;
    return headers;
  }

  /**
   * A URL the provider handed us for its own API (fal's `status_url`): used only when it is on the
   * API's origin, since the credential goes with it.
   */
  ownApiUrl(raw: unknown, what: string): URL {
    let url: URL | null = null;
    try {
      url = typeof raw === 'string' ? new URL(raw) : null;
    } catch {
      url = null;
    }
    if (!url || url.origin !== this.apiOrigin || url.username || url.password) {
      throw new UpstreamFailure('malformed', `${what} is not a URL on the API's origin`);
    }
    return url;
  }

  /**
   * Runs one generation, or one phase of a parked one (`phase`). `work` speaks the provider's protocol
   * through the `UpstreamJob` it is given; `cancel` asks the provider to stop a job by its reference.
   * When the runner aborts (lease lost, shutdown) the abort reason is rethrown untouched and the
   * upstream job is left alone: another worker may attach to it. When we give up on it ourselves (our
   * deadline, the provider unreachable or answering nonsense) it is cancelled, best effort, since
   * nobody will ever collect its result. A `check` makes no retries of its own: a failure that may
   * pass is `UpstreamNotNow` (the job is checked again later, until its deadline).
   */
  async run<T>(
    request: EngineRequest,
    work: (job: UpstreamJob) => Promise<T>,
    cancel?: (ref: string) => Promise<boolean>,
    phase: 'whole' | 'start' | 'check' | 'collect' = 'whole',
  ): Promise<T> {
    request.signal.throwIfAborted();
    const deadlineAt = request.deadlineAt ?? Date.now() + this.settings.totalTimeoutMs;
    const deadline = AbortSignal.timeout(Math.max(1, deadlineAt - Date.now()));
    const job = new UpstreamJob(this, request, deadlineAt, AbortSignal.any([request.signal, deadline]), phase === 'check' ? 0 : this.settings.retries);
    if ((phase === 'check' || phase === 'collect') && request.upstreamRef !== null) job.attach(request.upstreamRef);
    try {
      if (Date.now() >= deadlineAt) throw new UpstreamFailure('timeout', `no result within timeouts.totalMs (${this.settings.totalTimeoutMs} ms)`);
      return await work(job);
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason; // cancelled by the runner: not a failure of ours
      const failure =
        deadline.aborted || Date.now() >= deadlineAt
          ? error instanceof UpstreamFailure && error.kind === 'timeout'
            ? error
            : new UpstreamFailure('timeout', `no result within timeouts.totalMs (${this.settings.totalTimeoutMs} ms)`, { cause: error })
          : error instanceof UpstreamFailure
            ? error
            : null;
      // Not an upstream problem: a bug, or this worker lost the job (saveUpstreamRef): the runner decides.
      if (!failure) throw error;
      if (phase === 'check' && failure.transient && failure.kind !== 'timeout') throw new UpstreamNotNow(failure.retryAfterMs, failure.throttled, { cause: failure });
      this.logger.warn(
        { engine: this.name, jobId: request.jobId, kind: failure.kind, detail: this.redact(failure.detail), upstreamRef: job.upstreamRef },
        'Upstream generation failed',
      );
      const abandoned = failure.kind === 'timeout' || failure.kind === 'unavailable' || failure.kind === 'malformed';
      if (abandoned && cancel && job.upstreamRef !== null && !job.upstreamFinished) await cancel(job.upstreamRef);
      throw toEngineError(failure);
    }
  }

  /** A call that must not fail its caller (a cancel): short, never retried; true on a 2xx answer. */
  async bestEffort(call: Omit<UpstreamCall, 'maxBytes' | 'tooLarge'>, what: string): Promise<boolean> {
    try {
      const answer = await this.http.send(
        { ...call, maxBytes: MAX_JSON_BYTES, tooLarge: 'malformed', timeoutMs: Math.min(this.settings.requestTimeoutMs, CANCEL_TIMEOUT_MS) },
        new AbortController().signal,
      );
      if (answer.status >= 200 && answer.status < 300) return true;
      // 404: nothing by that id any more (finished, or already cancelled): nothing to do.
      if (answer.status !== 404) this.logger.warn({ engine: this.name, detail: `${what}: HTTP ${answer.status}` }, 'Upstream cancel refused');
    } catch (error) {
      const detail = error instanceof UpstreamFailure ? this.redact(error.detail) : 'error';
      this.logger.warn({ engine: this.name, detail: `${what}: ${detail}` }, 'Upstream cancel failed');
    }
    return false;
  }

  redact(text: string): string {
    const secret = this.credential?.secret;
    return secret ? text.split(secret).join('[redacted]') : text;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** One generation against the upstream: its deadline, its signal, its retries, its upstream reference. */
export class UpstreamJob {
  /** The upstream job's reference once known (logs, and the cancel when we give up). */
  upstreamRef: string | null = null;
  /** Set once the upstream reported a final state: nothing left to cancel. */
  upstreamFinished = false;

  constructor(
    private readonly client: UpstreamClient,
    readonly request: EngineRequest,
    private readonly deadlineAt: number,
    /** The job's signal and the whole-generation deadline together. */
    readonly signal: AbortSignal,
    /** Extra tries of a call that failed transiently (the binding's `retries`; none in a parked job's check). */
    private readonly retries: number,
  ) {}

  remainingMs(): number {
    return Math.max(0, this.deadlineAt - Date.now());
  }

  /**
   * Stores the upstream's reference on our job before anything waits on it, so a retry of this job
   * after a crash attaches to it instead of submitting (and paying) again. Rejects when this worker
   * no longer owns the job: the caller must then stop, and must not submit.
   */
  async saveRef(ref: string): Promise<void> {
    this.upstreamRef = ref;
    await this.request.saveUpstreamRef(ref);
  }

  /** An upstream reference found on the job (an earlier attempt's): attach to it, never submit. */
  attach(ref: string): void {
    this.upstreamRef = ref;
  }

  pause(ms: number): Promise<void> {
    return delay(ms, this.signal);
  }

  /**
   * Every output the provider answered (URLs, data URIs), fetched and checked, in its order; each
   * download retried on its own. At most `MAX_OUTPUTS`: more is an answer we do not understand.
   */
  fetchOutputs(references: readonly string[]): Promise<EngineOutput[]> {
    if (references.length === 0) throw new UpstreamFailure('malformed', 'the answer has no output');
    if (references.length > MAX_OUTPUTS) throw new UpstreamFailure('malformed', `the answer has ${references.length} outputs (at most ${MAX_OUTPUTS})`);
    return this.client.output.settle(references.map((reference) => this.retrying(true, () => this.client.output.fetch(reference, this.request.type, this.signal))));
  }

  /**
   * Runs a call, again after a transient failure (network, one call's timeout, 429, 5xx), up to
   * `retries` times, with exponential backoff or the upstream's `Retry-After` if longer, as long as
   * the deadline leaves room for the wait. `repeatable` is false for a call that creates something
   * upstream (a submit no provider deduplicates): it is only repeated after a failure that proves
   * nothing started (no connection, 429, 503), since repeating it otherwise may pay twice.
   */
  async retrying<T>(repeatable: boolean, call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (error instanceof UpstreamFailure && error.throttled) this.request.reportThrottled?.(error.retryAfterMs);
        if (!(error instanceof UpstreamFailure) || !error.transient || attempt >= this.retries) throw error;
        if (!repeatable && error.mayHaveStarted) throw error;
        const wait = Math.max(Math.min(2_000, 200 * 2 ** attempt), error.retryAfterMs ?? 0);
        // Waiting past the deadline only to time out: fail now with what the upstream said.
        if (wait >= this.remainingMs()) throw error;
        await this.pause(wait);
      }
    }
  }
}

/** The credential a binding names, read from the environment; `missing` when the variable is unset. */
export function readCredential(tokenEnv: string | null, context: ProviderContext, header: string, prefix: string): Credential | null | 'missing' {
  if (tokenEnv === null) return null;
  const secret = context.env(tokenEnv);
  if (secret === undefined || secret.trim() === '') return 'missing';
  const value = `${prefix}${secret.trim()}`;
  // A value that cannot be a header line (a pasted file with a newline) is as good as missing.
  if (/[\r\n\0]/.test(value)) return 'missing';
  return { header, value, secret: secret.trim() };
}

/**
 * The engine of a model whose credential is not configured here: listed unavailable (the catalogue
 * asks `unavailableReason`), and refused at submit. The reason names no variable and no host.
 */
export function unavailableEngine(name: string): Engine {
  return {
    name,
    unavailableReason: () => 'This model is temporarily unavailable: its provider credential is not configured on this server.',
    generate: () => Promise.reject(new Error(`engine ${name} is unavailable: its credential is not configured`)),
  };
}
