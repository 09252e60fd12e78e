import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, envelope, ErrorCode, ERROR_STATUS, sendHttpError } from '@gen/errors';
import { OPENAI_PREFIX, sendOpenAiError } from '../openai/openai-errors';

const logger = new Logger('HttpLimits');

/** Marks a connection already refused (Node reports a broken parser once per chunk that follows). */
const CLOSING = Symbol('gen.closingConnection');

/** Content codings a body may declare: none is decoded, so only "no coding" is accepted. */
const IDENTITY = new Set(['', 'identity']);

/**
 * Refuses a `Content-Encoding` the server does not decode (all but `identity`): reading a gzip body as
 * JSON would be refused later anyway, but as "not valid JSON", which tells the client nothing.
 */
export function checkContentEncoding(request: FastifyRequest): void {
  const header = request.headers['content-encoding'];
  if (header === undefined) return;
  const codings = (Array.isArray(header) ? header.join(',') : header).split(',').map((c) => c.trim().toLowerCase());
  if (codings.every((coding) => IDENTITY.has(coding))) return;
  throw new DomainError('unsupported_media_type', 'Content-Encoding is not supported: send the request body uncompressed.');
}

/** True when a request announces a body (RFC 9112: Content-Length above zero, or Transfer-Encoding). */
function announcesBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The error a body that took too long becomes (Fastify's body reader passes its statusCode on). */
export class BodyTimeoutError extends DomainError {
  readonly statusCode = 408;
  constructor(timeoutMs: number) {
    super('request_timeout', `The request body did not arrive within ${Math.round(timeoutMs / 1000)} s; send it at once, or retry.`);
  }
}

/**
 * The body stream Fastify reads, with a deadline: when the body has not fully arrived `timeoutMs`
 * after its headers, the stream fails with `408 request_timeout`, which is answered (in the envelope,
 * with `Connection: close`) like any parse error. The client's socket is left alone until then, so
 * the answer can still be written; Node's own `requestTimeout` is the backstop that closes it.
 */
export function withBodyDeadline(request: FastifyRequest, reply: FastifyReply, payload: Readable, timeoutMs: number): Readable {
  if (!announcesBody(request)) return payload;
  const out = new PassThrough() as PassThrough & { receivedEncodedLength: number };
  out.receivedEncodedLength = 0;
  // Nobody may be reading `out` (a GET with a body is not parsed): its failure must not crash the process.
  out.on('error', () => undefined);
  const timer = setTimeout(() => {
    payload.unpipe(out);
    payload.pause();
    void reply.header('Connection', 'close');
    out.destroy(new BodyTimeoutError(timeoutMs));
  }, timeoutMs);
  timer.unref();
  const settle = () => clearTimeout(timer);
  payload.on('data', (chunk: Buffer) => (out.receivedEncodedLength += chunk.length));
  payload.once('end', settle);
  payload.once('error', (error) => {
    settle();
    out.destroy(error);
  });
  payload.once('close', settle);
  reply.raw.once('close', settle);
  payload.pipe(out);
  return out;
}

/** What a malformed or too slow connection is answered (no request was made of it: no route, no hooks). */
function clientErrorCode(error: NodeJS.ErrnoException): ErrorCode {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request_timeout';
    case 'HPE_HEADER_OVERFLOW':
      return 'headers_too_large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 'payload_too_large';
    default:
      return 'bad_request';
  }
}

const CLIENT_ERROR_MESSAGES: Partial<Record<ErrorCode, string>> = {
  request_timeout: 'The request did not arrive in time; send the headers and body at once, or retry.',
  headers_too_large: 'The request headers are too large.',
  payload_too_large: 'The request body is too large.',
  bad_request: 'The request is not valid HTTP/1.1 and was not read.',
};

/**
 * Node's `clientError`: the request could not be parsed (a bare CR or LF, NUL in a header, both
 * Content-Length and Transfer-Encoding, bytes that are not allowed in a path), its headers were too
 * large, or it was too slow. Answered in the envelope with a new request id, then the connection is
 * closed, as HTTP requires after a framing error. Nothing of the request is echoed or logged.
 */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const state = socket as Socket & { _httpMessage?: ServerResponse | null; [CLOSING]?: boolean };
  if (state[CLOSING]) return; // the parser reports every later chunk too: answered once
  state[CLOSING] = true;
  const inFlight = state._httpMessage;
  if (inFlight && inFlight.req && !inFlight.req.complete) {
    // The request under way cannot be completed (its client went away mid-body, or broke the
    // chunked framing): its body stream fails, so its own log line says it was aborted, and
    // nothing can be answered.
    socket.destroy();
    return;
  }
  const code = clientErrorCode(error);
  const requestId = randomUUID();
  logger.warn({ requestId, status: ERROR_STATUS[code], code, cause: error.code ?? 'unknown' }, 'request refused: unreadable HTTP');
  if (inFlight) {
    // The bytes after a complete request are unreadable (a Content-Length one short, garbage after
    // the body): that request is still answered, then the connection closes; nothing more is read.
    socket.pause();
    if (!inFlight.headersSent) inFlight.setHeader('Connection', 'close');
    const close = () => socket.destroy();
    inFlight.once('finish', () => setTimeout(close, 1_000).unref());
    inFlight.once('close', close);
    setTimeout(close, 120_000).unref();
    return;
  }
  if (socket.writable) {
    const body = JSON.stringify(envelope(code, CLIENT_ERROR_MESSAGES[code] ?? 'The request was refused.', requestId));
    const status = ERROR_STATUS[code];
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    setTimeout(() => socket.destroy(), 1_000).unref();
    return;
  }
  socket.destroy();
}

/**
 * Fastify's `frameworkErrors`: refusals of its router, before any hook (malformed percent-encoding
 * in the path, a path parameter over `maxParamLength`). The envelope, the request id header, and one
 * log line, as a routed request would have; the URL is neither echoed nor logged.
 */
export function handleFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('X-Request-Id', String(request.id));
  if (request.url.startsWith(OPENAI_PREFIX)) sendOpenAiError(request, reply, error, logger);
  else sendHttpError(request, reply, error, logger);
  logger.warn(
    { requestId: String(request.id), method: request.method, status: reply.statusCode, code: (error as { code?: string }).code },
    'request refused: unroutable path',
  );
}
