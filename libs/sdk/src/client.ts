import { GenerationApiError } from './errors.js';
import { SseParser } from './sse.js';
import { Uploads } from './uploads.js';
import type {
  Credits,
  GenerateRequest,
  Generation,
  GenerationPage,
  GenerationStatus,
  GenerationStreamEvent,
  GenerationType,
  LedgerEntry,
  LedgerPage,
  Model,
  ModelList,
} from './types.js';

export interface GenerationClientOptions {
  /** An API key, `gsk_live_...` (dashboard, Settings, API Keys). Keep it on your server. */
  apiKey: string;
  /** Where the API is, e.g. `https://api.example.com` (the part before `/api/v1`). */
  baseUrl: string;
  /** Longest one HTTP attempt may take, in ms; default 60 000 (a synchronous image generation waits up to 30 s). */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx or a network error; default 2. Never for a request that is not idempotent. */
  maxRetries?: number;
  /** The fetch to use; default the runtime's. */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** Cancels the request (and its retries). */
  signal?: AbortSignal;
}

export interface CreateGenerationOptions extends RequestOptions {
  /**
   * Makes the submit safe to retry: the same key and body within 24 h answer the first response and
   * charge once. One is made for every create unless you give one, so the SDK's own retries are safe.
   */
  idempotencyKey?: string;
  /** A deadline: canceled (failed, refunded) if not finished this long after submit. `30s`, `5m`, `1h30m`, or seconds. */
  cancelAfter?: string | number;
}

export interface ListGenerationsOptions extends RequestOptions {
  status?: GenerationStatus;
  type?: GenerationType;
  /** Page size (the iterator still goes through every page); default the server's. */
  limit?: number;
}

export interface WaitOptions extends RequestOptions {
  /** Give up after this long, in ms (GenerationApiError, code `timeout`); default 10 minutes. */
  timeoutMs?: number;
  /** How often to read the generation when the live stream is unavailable, in ms; default 1000. */
  pollIntervalMs?: number;
}

/** A submit body: the documented fields, and any field the API adds later (`input`, `metadata`, ...). */
export type CreateGenerationBody = GenerateRequest & Record<string, unknown>;

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
/** The longest the SDK waits before a retry, whatever Retry-After says. */
const MAX_RETRY_DELAY_MS = 60_000;
const isFinal = (status: GenerationStatus) => status === 'completed' || status === 'failed';

/** @internal */
export interface CallOptions extends RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A body sent as it is (an upload's file), with its media type, instead of JSON. */
  raw?: { data: Uint8Array | ArrayBuffer | Blob; contentType: string };
  headers?: Record<string, string>;
  /** Safe to send twice (reads, cancel, a create with its Idempotency-Key): only such calls are retried. */
  idempotent: boolean;
}

/**
 * The Generation Service API: `generations`, `models`, `credits`. Every error is a
 * `GenerationApiError`. Needs only `fetch` and Web Crypto (Node 20+, Deno, Bun, browsers), though an
 * API key belongs on a server.
 */
export class GenerationClient {
  readonly generations: Generations;
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
    let body: string | Uint8Array | ArrayBuffer | Blob | undefined;
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
        const response = await this.attempt(url, { method, headers, body }, options.signal, accept === 'text/event-stream');
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
  let envelope: { error?: { code?: string; status?: number; message?: string; request_id?: string } } | undefined;
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
  });
}

/** Retry-After as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Retry-After when the service said it (capped at a minute), else 0.5 s doubling per attempt with jitter, up to 8 s. */
export function retryDelayMs(attempt: number, retryAfterSeconds: number | null): number {
  if (retryAfterSeconds !== null) return Math.min(retryAfterSeconds * 1000, MAX_RETRY_DELAY_MS);
  const base = Math.min(500 * 2 ** attempt, 8_000);
  return base / 2 + Math.random() * (base / 2);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.' }));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.' }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

const generationPath = (id: string) => `/api/v1/generations/${encodeURIComponent(id)}`;

/** Generations: submit, read, list, cancel, follow live, wait. */
export class Generations {
  constructor(private readonly client: GenerationClient) {}

  /**
   * Submits a generation. Synchronous (image) models usually answer with the finished record;
   * others with it queued or processing (then `wait` for it). Retried safely: an Idempotency-Key is
   * sent with every create (yours, or one made here).
   */
  create(body: CreateGenerationBody, options: CreateGenerationOptions = {}): Promise<Generation> {
    const headers: Record<string, string> = { 'idempotency-key': options.idempotencyKey ?? newIdempotencyKey() };
    if (options.cancelAfter !== undefined) headers['cancel-after'] = String(options.cancelAfter);
    return this.client.call<Generation>('POST', '/api/v1/generate', { body, headers, idempotent: true, signal: options.signal });
  }

  get(id: string, options: RequestOptions = {}): Promise<Generation> {
    return this.client.call<Generation>('GET', generationPath(id), { idempotent: true, signal: options.signal });
  }

  /** Cancels a queued or running generation (it becomes `failed`, refunded); 409 once it has finished. */
  cancel(id: string, options: RequestOptions = {}): Promise<Generation> {
    // Safe to retry: canceling a canceled generation answers it again.
    return this.client.call<Generation>('POST', `${generationPath(id)}/cancel`, { idempotent: true, signal: options.signal });
  }

  /** One page of the caller's generations, newest first. */
  page(options: ListGenerationsOptions & { cursor?: string } = {}): Promise<GenerationPage> {
    const { status, type, limit, cursor, signal } = options;
    return this.client.call<GenerationPage>('GET', '/api/v1/generations', { query: { status, type, limit, cursor }, idempotent: true, signal });
  }

  /** Every generation of the caller (newest first), page after page: `for await (const g of client.generations.list())`. */
  async *list(options: ListGenerationsOptions = {}): AsyncGenerator<Generation, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.page({ ...options, cursor });
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /**
   * The generation's records as they change (Server-Sent Events), ending after the final one
   * (`completed` or `failed`). A dropped connection is resumed (Last-Event-ID, after the server's
   * `retry` delay); a record the stream already gave is not given twice.
   */
  async *stream(id: string, options: RequestOptions = {}): AsyncGenerator<GenerationStreamEvent, void, undefined> {
    let lastEventId: string | null = null;
    let retryMs = 1000;
    let last: string | null = null;
    let reconnects = 0;
    for (;;) {
      const headers: Record<string, string> = lastEventId ? { 'last-event-id': lastEventId } : {};
      const response = await this.client.send('GET', `${generationPath(id)}/events`, { headers, idempotent: true, signal: options.signal }, 'text/event-stream');
      // 204: Last-Event-ID named the final record, which this stream already gave.
      if (response.status === 204) return;
      const parser = new SseParser();
      const decoder = new TextDecoder();
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let finished = false;
      try {
        for (;;) {
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (error) {
            if (options.signal?.aborted) throw new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.', cause: error });
            break; // the connection dropped: reconnect below
          }
          if (chunk.done) break;
          for (const record of parser.push(decoder.decode(chunk.value, { stream: true }))) {
            if (record.retryMs !== null) retryMs = record.retryMs;
            if (record.id !== null) lastEventId = record.id;
            if (record.data === '') continue;
            reconnects = 0;
            const data = JSON.parse(record.data) as Generation;
            // The server does not resend the Last-Event-ID record; an older server did, so skip a repeat.
            if (record.data !== last) {
              last = record.data;
              yield { event: record.event as GenerationStatus, id: record.id, data };
            }
            if (isFinal(data.status)) finished = true;
          }
          if (finished) return;
        }
      } finally {
        await reader.cancel().catch(() => undefined);
      }
      if (++reconnects > 5) throw new GenerationApiError({ code: 'connection_error', status: 0, message: 'The live stream kept closing before the generation finished.' });
      await sleep(retryMs, options.signal);
    }
  }

  /**
   * Resolves with the generation once it is `completed` or `failed`: follows its live stream, and
   * reads it every `pollIntervalMs` when the stream is unavailable (a proxy that buffers, the
   * account's stream limit). Rejects with code `timeout` after `timeoutMs`.
   */
  async wait(id: string, options: WaitOptions = {}): Promise<Generation> {
    const { timeoutMs = 600_000, pollIntervalMs = 1000 } = options;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const onAbort = () => deadline.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const timedOut = () => new GenerationApiError({ code: 'timeout', status: 0, message: `Generation ${id} did not finish within ${timeoutMs} ms.` });
    try {
      try {
        for await (const event of this.stream(id, { signal: deadline.signal })) if (isFinal(event.data.status)) return event.data;
      } catch (error) {
        if (!(error instanceof GenerationApiError)) throw error;
        if (error.code === 'aborted') throw options.signal?.aborted ? error : timedOut();
        // The generation itself is the problem (unknown id, no permission): polling would not help.
        if ([401, 403, 404].includes(error.status)) throw error;
      }
      for (;;) {
        const generation = await this.get(id, { signal: deadline.signal }).catch((error: unknown) => {
          throw error instanceof GenerationApiError && error.code === 'aborted' && !options.signal?.aborted ? timedOut() : error;
        });
        if (isFinal(generation.status)) return generation;
        await sleep(pollIntervalMs, deadline.signal).catch(() => {
          throw options.signal?.aborted ? new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.' }) : timedOut();
        });
      }
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** The model catalogue. */
export class Models {
  constructor(private readonly client: GenerationClient) {}

  /** Every model, each `available` for this key's account or with its `unavailable_reason`. */
  async list(options: RequestOptions = {}): Promise<Model[]> {
    return (await this.client.call<ModelList>('GET', '/api/v1/models', { idempotent: true, signal: options.signal })).data;
  }
}

/** The account's credits and their ledger. */
export class CreditsApi {
  constructor(private readonly client: GenerationClient) {}

  /** Plan, limits, available and held credits. */
  get(options: RequestOptions = {}): Promise<Credits> {
    return this.client.call<Credits>('GET', '/api/v1/credits', { idempotent: true, signal: options.signal });
  }

  /** Every credit change, newest first, page after page. */
  async *ledger(options: RequestOptions & { limit?: number } = {}): AsyncGenerator<LedgerEntry, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.client.call<LedgerPage>('GET', '/api/v1/credits/ledger', {
        query: { limit: options.limit, cursor },
        idempotent: true,
        signal: options.signal,
      });
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
}
