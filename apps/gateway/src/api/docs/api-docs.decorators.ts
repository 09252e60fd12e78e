import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiResponse } from '@nestjs/swagger';
/** Response headers as the OpenAPI document lists them. */
export type HeadersObject = Record<string, { description: string; schema: { type: 'string' | 'integer' } }>;
import { ErrorEnvelopeDto } from './api-schemas.dto';

export const API_KEY_SCHEME = 'apiKey';

/** Headers on every response of the API. */
export const COMMON_HEADERS: HeadersObject = {
  'X-Request-Id': {
    description: 'Identifies the request (the caller\'s own X-Request-Id when it is safe to echo); quote it to support.',
    schema: { type: 'string' },
  },
};

/** Rate-limit headers (IETF draft RateLimit fields) on authenticated API responses. */
export const RATE_LIMIT_HEADERS: HeadersObject = {
  'RateLimit-Limit': { description: "Requests allowed per window for the caller's plan.", schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};

const NO_RATE_LIMIT_HEADERS = [400, 401, 413, 415];

const RETRY_AFTER: HeadersObject = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'bad_request: the body is not JSON, or is empty with a JSON content type',
  401: 'unauthorized: missing, malformed, unknown or revoked API key',
  402: 'insufficient_credits: available credits below the model\'s minimum (the message names it)',
  403: 'forbidden: the key lacks the scope, or the model needs a higher plan',
  404: 'not_found: unknown id, another account\'s job, or unknown route',
  409: 'conflict: the Idempotency-Key was used with a different body, or its first request is still running',
  413: 'payload_too_large: the body is over the size limit',
  415: 'unsupported_media_type: the body is not application/json',
  422: 'validation_error: the body or query failed validation; the message names each field',
  429: 'rate_limit_exceeded: rate or queue limit reached; see Retry-After',
  500: 'internal_error: unexpected; the request id finds the log line',
  503: 'service_unavailable: a dependency did not answer in time; see Retry-After',
};

/** The error envelope for each given status, with its headers. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: ERROR_DESCRIPTIONS[status],
        type: ErrorEnvelopeDto,
        headers: {
          ...COMMON_HEADERS,
          ...(status === 429 || status === 503 ? RETRY_AFTER : {}),
          // Not on answers given before the rate limiter runs (no key, unreadable body).
          ...(NO_RATE_LIMIT_HEADERS.includes(status) ? {} : RATE_LIMIT_HEADERS),
        },
      }),
    ),
  );
}

/** An authenticated API route: bearer API key, and the errors every such route can answer. */
export function ApiAuthenticated(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiBearerAuth(API_KEY_SCHEME),
    ApiHeader({ name: 'X-Request-Id', required: false, description: 'Your own id for the request (1-128 of A-Z a-z 0-9 . _ : -), echoed back.' }),
    ApiErrors(401, 429, 500, 503),
  );
}

/** Headers of a successful authenticated response. */
export function successHeaders(extra: HeadersObject = {}): HeadersObject {
  return { ...COMMON_HEADERS, ...RATE_LIMIT_HEADERS, ...extra };
}
