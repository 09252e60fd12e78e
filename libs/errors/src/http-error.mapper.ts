import { HttpException } from '@nestjs/common';
import { codeForHttpStatus, ErrorCode, ERROR_STATUS } from './error-codes';
import { DomainError } from './domain-error';
import { INTERNAL_ERROR_MESSAGE, isRpcErrorPayload } from './envelope';
import { databaseUnavailable, isTransientDatabaseError } from './transient';

export interface HttpErrorResponse {
  status: number;
  code: ErrorCode;
  message: string;
  retryAfterSeconds?: number;
  /** True when the error is ours to investigate (logged with its stack). */
  unexpected: boolean;
}

/** Errors Fastify raises before a route runs, by their `code`. */
const FASTIFY_ERRORS: Record<string, { code: ErrorCode; message: (e: Error) => string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'bad_request', message: () => 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'bad_request',
    message: () => 'The request body is empty; send a JSON object with Content-Type: application/json.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: () => 'Unsupported Content-Type; send the body as application/json.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', message: () => 'The request body is too large.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'bad_request',
    message: () => 'The Content-Length header does not match the body.',
  },
  // Raised by the router before any hook; their Fastify texts echo the whole URL, these never do.
  FST_ERR_BAD_URL: {
    code: 'bad_request',
    message: () => 'The request path is not valid: it has malformed percent-encoding.',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'uri_too_long',
    message: () => 'A segment of the request path is too long (at most 100 characters).',
  },
};

function fastifyError(error: unknown): HttpErrorResponse | undefined {
  if (!(error instanceof Error)) return undefined;
  const fastifyCode = (error as { code?: unknown }).code;
  if (typeof fastifyCode !== 'string') return undefined;
  const known = FASTIFY_ERRORS[fastifyCode];
  if (known) {
    return { status: ERROR_STATUS[known.code], code: known.code, message: known.message(error), unexpected: false };
  }
  // JSON.parse failures surface as SyntaxError with statusCode 400 in some Fastify paths.
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const code = codeForHttpStatus(statusCode);
    return { status: ERROR_STATUS[code], code, message: 'The request could not be read.', unexpected: false };
  }
  return undefined;
}

function httpExceptionMessage(exception: HttpException, code: ErrorCode): string {
  if (code === 'not_found') return 'No such route. See /api/v1/openapi.json for the endpoints.';
  const body = exception.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return exception.message;
}

/**
 * An error Fastify raised itself (body parsing and limits), as the domain error the envelope states
 * for it; undefined for anything else. Nest re-wraps Fastify's errors in an HttpException that keeps
 * only Fastify's own wording, so the HTTP app converts them with this before Nest sees them.
 */
export function domainErrorFromFastify(error: unknown): DomainError | undefined {
  const mapped = fastifyError(error);
  return mapped ? new DomainError(mapped.code, mapped.message) : undefined;
}

/** One mapping from anything thrown to the spec's error envelope, shared by every HTTP path. */
export function mapHttpError(error: unknown): HttpErrorResponse {
  if (error instanceof DomainError) {
    return {
      status: ERROR_STATUS[error.code],
      code: error.code,
      message: error.message,
      retryAfterSeconds: error.retryAfterSeconds,
      unexpected: error.code === 'internal_error',
    };
  }
  if (isRpcErrorPayload(error)) {
    return {
      status: ERROR_STATUS[error.code],
      code: error.code,
      message: error.code === 'internal_error' ? INTERNAL_ERROR_MESSAGE : error.message,
      retryAfterSeconds: error.retryAfterSeconds,
      unexpected: error.code === 'internal_error',
    };
  }
  const fromFastify = fastifyError(error);
  if (fromFastify) return fromFastify;
  if (error instanceof HttpException) {
    const code = codeForHttpStatus(error.getStatus());
    if (code === 'internal_error') {
      return { status: 500, code, message: INTERNAL_ERROR_MESSAGE, unexpected: true };
    }
    return { status: ERROR_STATUS[code], code, message: httpExceptionMessage(error, code), unexpected: false };
  }
  if (isTransientDatabaseError(error)) return mapHttpError(databaseUnavailable());
  return { status: 500, code: 'internal_error', message: INTERNAL_ERROR_MESSAGE, unexpected: true };
}
