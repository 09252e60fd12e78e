import type { GenerateRequest, GenerationStatus, GenerationType } from './types.js';

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
