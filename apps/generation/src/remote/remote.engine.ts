import { Logger } from '@nestjs/common';
import type { Engine, EngineOutput, EngineRequest } from '../engines/engine';
import { delay } from '../engines/engine-runtime';
import { outputFormatFor } from './output-format';
import type { RemoteEngineSettings } from './remote-engine.settings';
import { toEngineError, UpstreamFailure } from './upstream-failure';
import { UpstreamAnswer, UpstreamHttp } from './upstream-http';

/** Largest JSON answer of a submit or status call. */
const MAX_JSON_BYTES = 1024 * 1024;
const MAX_OUTPUT_REDIRECTS = 3;
const PENDING = new Set(['queued', 'pending', 'starting', 'processing', 'running', 'in_progress']);
const SUCCEEDED = new Set(['succeeded', 'completed', 'success']);
const FAILED = new Set(['failed', 'error', 'canceled', 'cancelled']);

type UpstreamState =
  | { phase: 'pending' }
  | { phase: 'succeeded'; outputUrl: string }
  | { phase: 'failed'; reason: string };

/**
 * An engine backed by an upstream model API over HTTP (docs/engines.md, "Remote engines"):
 * submit, poll until the upstream job ends, download the output and hand its bytes to our
 * storage, so `output_url` always points at our own content host.
 *
 * - Every failure ends as an EngineError with a fixed, sanitised message (USER_MESSAGES); the
 *   details (status codes, paths, the upstream's own error text) go to the operator's log only,
 *   and the credential appears in neither.
 * - The job id is sent as `Idempotency-Key`, so a job retried after its worker died re-attaches to
 *   the upstream job that is already running instead of paying for a second one.
 * - Transient failures (network, 429, 5xx, one call's timeout) are retried `retries` times with
 *   backoff, within the whole-generation deadline `timeouts.totalMs`.
 * - When the job is cancelled (lease lost, shutdown) the abort reason is rethrown untouched and
 *   the upstream job is left alone: another worker may be attached to it. When we give up on
 *   our own deadline, a best-effort cancel is sent if `cancelPath` is configured.
 */
export class RemoteEngine implements Engine {
  private readonly logger = new Logger(RemoteEngine.name);
  private readonly http: UpstreamHttp;
  private readonly origin: string;

  constructor(
    readonly name: string,
    private readonly settings: RemoteEngineSettings,
  ) {
    this.http = new UpstreamHttp(settings);
    this.origin = new URL(settings.baseUrl).origin;
  }

  async generate(request: EngineRequest): Promise<EngineOutput> {
    request.signal.throwIfAborted();
    const deadline = AbortSignal.timeout(this.settings.totalTimeoutMs);
    const signal = AbortSignal.any([request.signal, deadline]);
    let upstreamId: string | null = null;
    try {
      const submitted = await this.retrying(signal, () => this.submit(request, signal));
      upstreamId = submitted.id;
      let state = submitted.state;
      while (state.phase === 'pending') {
        await delay(this.settings.pollIntervalMs, signal);
        state = await this.retrying(signal, () => this.poll(submitted.id, signal));
      }
      if (state.phase === 'failed') {
        throw new UpstreamFailure('generation_failed', `upstream job ${submitted.id} ended: ${state.reason}`);
      }
      const outputUrl = state.outputUrl;
      return await this.retrying(signal, () => this.download(outputUrl, request, signal));
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason; // cancelled by the runner: not a failure of ours
      const failure = deadline.aborted
        ? new UpstreamFailure('timeout', `no result within timeouts.totalMs (${this.settings.totalTimeoutMs} ms)`, { cause: error })
        : error instanceof UpstreamFailure
          ? error
          : null;
      if (!failure) throw error; // a bug here, not an upstream problem: the runner logs it and fails the job generically
      this.logger.warn(
        { engine: this.name, jobId: request.jobId, kind: failure.kind, detail: this.redact(failure.detail), upstreamId },
        'Remote generation failed',
      );
      if (failure.kind === 'timeout' && upstreamId !== null) await this.cancel(upstreamId);
      throw toEngineError(failure);
    }
  }

  dispose(): Promise<void> {
    return this.http.close();
  }

  private async submit(request: EngineRequest, signal: AbortSignal): Promise<{ id: string; state: UpstreamState }> {
    const { latencyMs: _internal, ...params } = request.params;
    const answer = await this.http.send(
      {
        method: 'POST',
        url: this.apiUrl(this.settings.submitPath),
        headers: { ...this.apiHeaders(), 'content-type': 'application/json', 'idempotency-key': request.jobId },
        body: JSON.stringify({
          model: this.settings.upstreamModel ?? request.modelId,
          type: request.type,
          prompt: request.prompt,
          seed: request.seed,
          params,
        }),
        maxBytes: MAX_JSON_BYTES,
        tooLarge: 'malformed',
      },
      signal,
    );
    const body = this.expectJson(answer, 'submit');
    const id = body.id;
    if (!((typeof id === 'string' && /^[\x21-\x7e]{1,200}$/.test(id)) || (typeof id === 'number' && Number.isSafeInteger(id)))) {
      throw new UpstreamFailure('malformed', 'submit answer has no usable "id"');
    }
    const upstreamId = String(id);
    return { id: upstreamId, state: body.status === undefined ? { phase: 'pending' } : this.readState(body, 'submit') };
  }

  private async poll(upstreamId: string, signal: AbortSignal): Promise<UpstreamState> {
    const answer = await this.http.send(
      {
        method: 'GET',
        url: this.apiUrl(this.settings.statusPath.replace('{id}', encodeURIComponent(upstreamId))),
        headers: this.apiHeaders(),
        maxBytes: MAX_JSON_BYTES,
        tooLarge: 'malformed',
      },
      signal,
    );
    return this.readState(this.expectJson(answer, 'status'), 'status');
  }

  private async download(outputUrl: string, request: EngineRequest, signal: AbortSignal): Promise<EngineOutput> {
    let url = this.outputUrl(outputUrl, this.settings.baseUrl + '/');
    for (let hop = 0; ; hop++) {
      const answer = await this.http.send(
        {
          method: 'GET',
          url,
          // The credential goes to the upstream's own origin only, never to a CDN it points at.
          headers: url.origin === this.origin ? this.apiHeaders('*/*') : { accept: '*/*' },
          maxBytes: this.settings.maxOutputBytes,
          tooLarge: 'output_invalid',
        },
        signal,
      );
      if (answer.status >= 300 && answer.status < 400 && answer.location && hop < MAX_OUTPUT_REDIRECTS) {
        url = this.outputUrl(answer.location, url.href);
        continue;
      }
      if (answer.status === 429 || answer.status >= 500) throw new UpstreamFailure('unavailable', `output download: HTTP ${answer.status}`);
      if (answer.status < 200 || answer.status >= 300) {
        throw new UpstreamFailure('output_unavailable', `output download ${url.pathname}: HTTP ${answer.status}`);
      }
      const format = outputFormatFor(request.type, answer.body);
      if (!format) {
        throw new UpstreamFailure('output_invalid', `output of ${answer.body.length} bytes is not a ${request.type} asset we accept`);
      }
      return { data: answer.body, contentType: format.contentType, extension: format.extension };
    }
  }

  /** Best effort, short, never retried and never failing the caller. */
  async cancel(upstreamId: string): Promise<void> {
    if (!this.settings.cancelPath) return;
    try {
      await this.http.send(
        {
          method: 'POST',
          url: this.apiUrl(this.settings.cancelPath.replace('{id}', encodeURIComponent(upstreamId))),
          headers: this.apiHeaders(),
          maxBytes: MAX_JSON_BYTES,
          tooLarge: 'malformed',
        },
        new AbortController().signal,
        Math.min(this.settings.requestTimeoutMs, 2_000),
      );
    } catch (error) {
      this.logger.warn({ engine: this.name, upstreamId, detail: error instanceof UpstreamFailure ? this.redact(error.detail) : 'error' }, 'Remote cancel failed');
    }
  }

  private async retrying<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof UpstreamFailure) || !error.transient || attempt >= this.settings.retries) throw error;
        await delay(Math.min(2_000, 200 * 2 ** attempt), signal);
      }
    }
  }

  private expectJson(answer: UpstreamAnswer, call: string): Record<string, unknown> {
    const { status } = answer;
    if (status === 401 || status === 403) throw new UpstreamFailure('unauthorized', `${call}: HTTP ${status} (check the credential)`);
    if (status === 408) throw new UpstreamFailure('timeout', `${call}: HTTP 408`);
    if (status === 429 || status >= 500) throw new UpstreamFailure('unavailable', `${call}: HTTP ${status}`);
    if (status >= 400) throw new UpstreamFailure('refused', `${call}: HTTP ${status}: ${snippet(answer.body)}`);
    if (status < 200 || status >= 300) throw new UpstreamFailure('malformed', `${call}: unexpected HTTP ${status}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw new UpstreamFailure('malformed', `${call}: answer is not JSON: ${snippet(answer.body)}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new UpstreamFailure('malformed', `${call}: answer is not a JSON object`);
    }
    return parsed as Record<string, unknown>;
  }

  private readState(body: Record<string, unknown>, call: string): UpstreamState {
    const status = typeof body.status === 'string' ? body.status.toLowerCase() : '';
    if (PENDING.has(status)) return { phase: 'pending' };
    if (FAILED.has(status)) {
      const reason = typeof body.error === 'string' ? body.error.slice(0, 300) : status;
      return { phase: 'failed', reason };
    }
    if (SUCCEEDED.has(status)) {
      const output = body.output_url ?? body.output;
      const url = typeof output === 'string' ? output : Array.isArray(output) && typeof output[0] === 'string' ? output[0] : null;
      if (!url) throw new UpstreamFailure('malformed', `${call}: "${status}" without an output URL`);
      return { phase: 'succeeded', outputUrl: url };
    }
    throw new UpstreamFailure('malformed', `${call}: unknown status ${JSON.stringify(body.status)?.slice(0, 40)}`);
  }

  private apiUrl(path: string): URL {
    return new URL(this.settings.baseUrl + path);
  }

  private apiHeaders(accept = 'application/json'): Record<string, string> {
    const headers: Record<string, string> = { accept, 'user-agent': 'GenerationService/1.0' };
    if (this.settings.auth) headers[this.settings.auth.header.toLowerCase()] = this.settings.auth.value;
    return headers;
  }

  /** An output URL we may download: http(s), from the upstream's origin or an allowed one. */
  private outputUrl(raw: string, base: string): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new UpstreamFailure('malformed', 'output URL is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UpstreamFailure('malformed', `output URL scheme ${url.protocol}`);
    if (url.origin !== this.origin && !this.settings.outputOrigins.includes(url.origin)) {
      throw new UpstreamFailure('output_unavailable', `output origin ${url.origin} is not in outputOrigins`);
    }
    return url;
  }

  private redact(text: string): string {
    const secret = this.settings.auth?.value;
    return secret ? text.split(secret).join('[redacted]') : text;
  }
}

function snippet(body: Buffer): string {
  return JSON.stringify(body.subarray(0, 120).toString('utf8'));
}
