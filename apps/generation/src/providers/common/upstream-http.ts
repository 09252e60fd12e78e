import { createSafeDispatcher } from '@gen/webhook-policy';
import { Agent, Dispatcher, errors, request } from 'undici';
import { UpstreamFailure, UpstreamFailureKind } from './upstream-failure';
import { deadlineSignal } from '../../engines/engine-runtime';

export interface UpstreamCall {
  method: 'GET' | 'POST' | 'PUT';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** Largest body read; a longer one fails with `tooLarge`. */
  maxBytes: number;
  /** The failure kind of a body over `maxBytes`. */
  tooLarge: UpstreamFailureKind;
  /** This call's own timeout (until its whole body arrived); default the client's `requestTimeoutMs`. */
  timeoutMs?: number;
}

export interface UpstreamAnswer {
  status: number;
  /** `Location` (redirects). */
  location: string | null;
  /** `Retry-After` in ms (seconds or an HTTP date), when present and sensible. */
  retryAfterMs: number | null;
  body: Buffer;
}

/** An answer whose body is still to be read (`UpstreamHttp.open`). */
export interface UpstreamStream extends Omit<UpstreamAnswer, 'body'> {
  body: AsyncIterable<Buffer>;
  discard(): void;
}

export interface UpstreamHttpOptions {
  /** DNS + TCP + TLS of one connection. */
  connectTimeoutMs: number;
  /** Default timeout of one call, until its whole body has arrived. */
  requestTimeoutMs: number;
  /**
   * Whether loopback and private addresses may be reached (UPSTREAM_ALLOW_PRIVATE_NETWORKS). Checked
   * on every connection against the address actually connected to (libs/webhook-policy, as webhooks
   * do), so neither a hostname resolving to a private address nor an output URL or redirect pointing
   * at one slips through; cloud metadata addresses stay refused either way.
   */
  allowPrivateNetworks: boolean;
}

/** Network errors raised before the request could reach the upstream: safe to retry any call. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
const FORBIDDEN_DESTINATION = 'ERR_WEBHOOK_FORBIDDEN_DESTINATION';
/** Longest `Retry-After` honoured as such; longer ones are capped (the deadline decides anyway). */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * HTTP to one upstream: a connection pool (keep-alive, connect timeout, the destination policy) and a
 * per-call timeout. `signal` is the job's own signal (lease lost, shutdown, whole-generation deadline):
 * when it aborts, its reason is thrown unchanged so the caller can tell cancellation from a failure.
 * Redirects are never followed here; the caller decides (only output downloads follow them).
 */
export class UpstreamHttp {
  private readonly agent: Agent;

  constructor(private readonly options: UpstreamHttpOptions) {
    // http is allowed: the base URL is the operator's choice (a Cog container on the cluster network).
    this.agent = createSafeDispatcher(
      { allowHttp: true, allowPrivate: options.allowPrivateNetworks, allowList: [] },
      { connectTimeoutMs: options.connectTimeoutMs, connectionsPerOrigin: 64 },
    );
  }

  async send(call: UpstreamCall, signal: AbortSignal): Promise<UpstreamAnswer> {
    const opened = await this.open(call, signal);
    const body = await readLimited(opened.body, call.maxBytes, () => {
      throw new UpstreamFailure(call.tooLarge, `${call.method} ${call.url.pathname}: body larger than ${call.maxBytes} bytes`);
    });
    return { status: opened.status, location: opened.location, retryAfterMs: opened.retryAfterMs, body };
  }

  /**
   * The call's status and headers, its body not read yet (output downloads stream it into the
   * storage). The body's errors arrive as the same failures `send` throws; `discard()` drops a body
   * that is not wanted (a redirect, an error status), which must be done when it is not read.
   */
  async open(call: Omit<UpstreamCall, 'maxBytes' | 'tooLarge'>, signal: AbortSignal): Promise<UpstreamStream> {
    signal.throwIfAborted();
    const timeoutMs = Math.max(1, call.timeoutMs ?? this.options.requestTimeoutMs);
    const deadline = deadlineSignal(signal, timeoutMs);
    const what = `${call.method} ${call.url.pathname}`;
    const failure = (error: unknown): unknown => {
      if (signal.aborted) return signal.reason;
      if (error instanceof UpstreamFailure) return error;
      return networkFailure(error, what, deadline.timedOut, timeoutMs);
    };
    let response: Dispatcher.ResponseData;
    try {
      response = await request(call.url, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        dispatcher: this.agent,
        signal: deadline.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (error) {
      deadline.dispose();
      throw failure(error);
    }
    const raw = response.body;
    // The limit covers the body too: let go of it once the body is read, dropped or broken.
    raw.once('close', () => deadline.dispose());
    return {
      status: response.statusCode,
      location: header(response.headers.location),
      retryAfterMs: parseRetryAfter(header(response.headers['retry-after'])),
      body: mappedBody(raw, failure),
      discard: () => drop(raw),
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function networkFailure(error: unknown, what: string, timedOut: boolean, timeoutMs: number): UpstreamFailure {
  const forbidden = findCode(error, FORBIDDEN_DESTINATION);
  if (forbidden) {
    // A configuration problem (UPSTREAM_ALLOW_PRIVATE_NETWORKS), not a passing one: not retried.
    return new UpstreamFailure('unavailable', `${what}: destination refused by the network policy (${forbidden.message})`, {
      cause: error,
      mayHaveStarted: false,
      retryable: false,
    });
  }
  if (error instanceof errors.ConnectTimeoutError) {
    return new UpstreamFailure('timeout', `${what}: connect timeout`, { cause: error, mayHaveStarted: false });
  }
  if (timedOut || error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
    return new UpstreamFailure('timeout', `${what}: no complete answer within ${timeoutMs} ms`, { cause: error });
  }
  const code = (error as { code?: string }).code ?? (error as Error).name;
  return new UpstreamFailure('unavailable', `${what}: network error ${code}`, { cause: error, mayHaveStarted: !NOT_SENT_CODES.has(code) });
}

/** The error, or one of its causes, carrying `code` (undici and fetch wrap connector errors). */
function findCode(error: unknown, code: string): Error | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: string }).code === code) return e;
  }
  return null;
}

function header(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : null;
}

/** `Retry-After: <seconds>` or `Retry-After: <HTTP date>` (RFC 9110, 10.2.3), in ms from now. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    // An HTTP date (`Fri, 20 Nov 2026 10:00:05 GMT`), never a bare number Date.parse would take as a year.
    const at = /[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/** Reads a body whole, failing past `maxBytes` (leaving the loop stops and destroys the body). */
export async function readLimited(body: AsyncIterable<Buffer>, maxBytes: number, onTooLarge: () => never): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) onTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** A response body whose errors are the call's failures, destroyed when its reader stops early. */
async function* mappedBody(body: Dispatcher.ResponseData['body'], failure: (error: unknown) => unknown): AsyncGenerator<Buffer> {
  let done = false;
  try {
    for await (const chunk of body) yield chunk;
    done = true;
  } catch (error) {
    throw failure(error);
  } finally {
    if (!done) drop(body);
  }
}

/** Destroys a body not read to its end; its abort error is expected and nobody else listens for it. */
function drop(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * The failure an HTTP status means, the same way for every provider (docs/design/engines.md, "What users
 * see"); null for 2xx. 429 and 503 say the upstream refused before doing any work, so even a submit
 * may be retried after them; `Retry-After` is kept for the backoff.
 */
export function statusFailure(answer: UpstreamAnswer, what: string): UpstreamFailure | null {
  const { status } = answer;
  if (status >= 200 && status < 300) return null;
  // 402: the provider account has no credit left; like a bad credential, the operator's problem.
  if (status === 401 || status === 402 || status === 403) {
    return new UpstreamFailure('unauthorized', `${what}: HTTP ${status} (check the credential and the provider account)`);
  }
  if (status === 408) return new UpstreamFailure('timeout', `${what}: HTTP 408`, { mayHaveStarted: false });
  if (status === 429 || status === 503) {
    return new UpstreamFailure('unavailable', `${what}: HTTP ${status}`, { mayHaveStarted: false, retryAfterMs: answer.retryAfterMs, throttled: status === 429 });
  }
  if (status >= 500) return new UpstreamFailure('unavailable', `${what}: HTTP ${status}: ${snippet(answer.body)}`);
  if (status >= 400) return new UpstreamFailure('refused', `${what}: HTTP ${status}: ${snippet(answer.body)}`);
  return new UpstreamFailure('malformed', `${what}: unexpected HTTP ${status}`);
}

/** A 2xx JSON object answer, or the failure it is. */
export function jsonObject(answer: UpstreamAnswer, what: string): Record<string, unknown> {
  const failure = statusFailure(answer, what);
  if (failure) throw failure;
  return parseJsonObject(answer.body, what);
}

export function parseJsonObject(body: Buffer, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new UpstreamFailure('malformed', `${what}: answer is not JSON: ${snippet(body)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UpstreamFailure('malformed', `${what}: answer is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/** The start of an answer, for the operator's log (redacted by the caller). */
export function snippet(body: Buffer): string {
  return JSON.stringify(body.subarray(0, 160).toString('utf8'));
}
