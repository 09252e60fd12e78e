import type { ApiCalls } from './api-calls.js';
import { Batches } from './batches.js';
import { CreditsApi, Models } from './catalogue.js';
import { GenerationApiError, type BatchLineProblem } from './errors.js';
import { Generations } from './generations.js';
import type { CallOptions, GenerationClientOptions } from './options.js';
import { parseRetryAfter, retryDelayMs, sleep } from './retry.js';
import { Uploads } from './uploads.js';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
/** Bodies read as they arrive (a live stream, a batch's results file), not within timeoutMs. */
const STREAMED_TYPES = ['text/event-stream', 'application/jsonl'];

/**
 * The Generation Service API: `generations`, `batches`, `models`, `credits`, `uploads`. Every error is a
 * `GenerationApiError`. Needs only `fetch` and Web Crypto (Node 20+, Deno, Bun, browsers), though an
 * API key belongs on a server.
 */
export class GenerationClient implements ApiCalls {
  readonly generations: Generations;
  readonly batches: Batches;
  readonly models: Models;
  readonly credits: CreditsApi;
  readonly uploads: Uploads;
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: GenerationClientOptions) {
    if (!options || typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey is required');
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) throw new TypeError('baseUrl: an http(s) URL, e.g. https://api.example.com');
    this.apiKey = options.apiKey;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.fetchImpl = options.fetch ?? ((...args) => globalThis.fetch(...args));
    this.generations = new Generations(this);
    this.batches = new Batches(this);
    this.models = new Models(this);
    this.credits = new CreditsApi(this);
    this.uploads = new Uploads(this);
  }

  /** @internal One API call, retried (when idempotent) on 429, 5xx and network errors, honouring Retry-After. */
  async call<T>(method: string, path: string, options: CallOptions): Promise<T> {
    const response = await this.send(method, path, options, 'application/json');
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** @internal The response of a successful call (any content type), after the same retries. */
  async send(method: string, path: string, options: CallOptions, accept: string): Promise<Response> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept, ...options.headers };
    let body: RequestInit['body'];
    if (options.raw) {
      body = options.raw.data instanceof Uint8Array ? new Uint8Array(options.raw.data) : options.raw.data;
      headers['content-type'] = options.raw.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = options.idempotent ? this.maxRetries - attempt : 0;
      let failure: GenerationApiError;
      try {
        const response = await this.attempt(url, { method, headers, body }, options.signal, STREAMED_TYPES.includes(accept));
        if (response.ok) return response;
        failure = await apiError(response);
        if (!(response.status === 429 || response.status >= 500) || retriesLeft <= 0) throw failure;
      } catch (error) {
        if (!(error instanceof GenerationApiError)) throw error;
        failure = error;
        const retryable = failure.status === 0 ? failure.code !== 'aborted' : failure.status === 429 || failure.status >= 500;
        if (!retryable || retriesLeft <= 0) throw failure;
      }
      await sleep(retryDelayMs(attempt, failure.retryAfterSeconds), options.signal);
    }
  }

  /** One HTTP exchange within timeoutMs (for a stream: until its headers arrive). */
  private async attempt(url: URL, init: RequestInit, signal: AbortSignal | undefined, streaming: boolean): Promise<Response> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    try {
      const response = await this.fetchImpl(url, { ...init, signal: controller.signal });
      if (streaming && response.ok) return response;
      // Read the body within the same timeout (a trickled body counts too).
      const text = await response.text();
      return new Response(text === '' ? null : text, { status: response.status, headers: response.headers });
    } catch (error) {
      if (signal?.aborted) throw new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.', cause: error });
      if (timedOut) throw new GenerationApiError({ code: 'timeout', status: 0, message: `No complete answer within ${this.timeoutMs} ms.`, cause: error });
      throw new GenerationApiError({ code: 'connection_error', status: 0, message: `The API could not be reached: ${(error as Error).message}`, cause: error });
    } finally {
      clearTimeout(timer);
      if (!streaming) signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** The error of a non-2xx answer, from its envelope (or its status, for a body that is not one). */
async function apiError(response: Response): Promise<GenerationApiError> {
  const text = await response.text();
  let envelope: { error?: { code?: string; status?: number; message?: string; request_id?: string; lines?: unknown } } | undefined;
  try {
    envelope = JSON.parse(text);
  } catch {
    envelope = undefined;
  }
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  return new GenerationApiError({
    code: envelope?.error?.code ?? (response.status >= 500 ? 'internal_error' : 'http_error'),
    status: response.status,
    message: envelope?.error?.message ?? `HTTP ${response.status}`,
    requestId: envelope?.error?.request_id ?? response.headers.get('x-request-id'),
    retryAfterSeconds: retryAfter,
    lines: Array.isArray(envelope?.error?.lines) ? (envelope.error.lines as BatchLineProblem[]) : null,
  });
}

