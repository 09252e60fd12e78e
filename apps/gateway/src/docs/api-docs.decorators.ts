import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode, INTERNAL_ERROR_MESSAGE, mapHttpError, UnauthorizedError } from '@gen/errors';
import { Subjects } from '@gen/contracts';
import { dependencyTimeoutMessage } from '@gen/transport';
import { ErrorEnvelopeDto } from './error-envelope.dto';

/** Response headers as the OpenAPI document lists them. */
export type HeadersObject = Record<string, { description: string; schema: { type: 'string' | 'integer' } }>;

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

const WWW_AUTHENTICATE: HeadersObject = {
  'WWW-Authenticate': {
    description: '`Bearer realm="Generation Service API"`, with `error="invalid_token"` when a key was sent (RFC 6750).',
    schema: { type: 'string' },
  },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'bad_request: the body is not JSON, is empty with a JSON content type, is not UTF-8, or nests too deep',
  401: 'unauthorized: missing, malformed, unknown or revoked API key',
  402: "insufficient_credits: available credits below the model's minimum (the message names it); spending_cap_reached: the hold would pass the API key's cap per day or month (the message names the cap and when it resets)",
  403: 'forbidden: the key lacks the permission (scope) the route needs, or the model needs a higher plan',
  404: "not_found: unknown id, or another account's",
  409: "conflict: the request conflicts with the resource's state",
  410: 'gone: the output was deleted at the end of its retention period (OUTPUT_RETENTION_HOURS)',
  413: 'payload_too_large: the body is over the size limit',
  415: 'unsupported_media_type: the body is not application/json (UTF-8), or has a Content-Encoding',
  422: 'validation_error: the body, query or a header failed validation; the message names each field once',
  429: 'rate_limit_exceeded: the rate limit (or another limit the message names) was reached; see Retry-After',
  500: 'internal_error: unexpected; the request id finds the log line',
  503: 'service_unavailable: a dependency did not answer in time; see Retry-After',
};

/** One example error message of a response, as the service writes it. */
export interface ErrorExample {
  summary: string;
  message: string;
  /** The code, when not the status's first (402 spending_cap_reached). */
  code?: ErrorCode;
}

/**
 * A documented error status. A plain number takes the status's shared examples (below), when it has
 * any; an object adds examples of its own for this route (what this route answers, word for word).
 */
export type ErrorDoc = number | { status: number; description?: string; examples: Record<string, ErrorExample> };

/** What Fastify raised for a body that is not JSON, as the service maps it. */
const fastifyMessage = (code: string) => mapHttpError(Object.assign(new Error(code), { code })).message;

/**
 * Examples that are the same on every route that can answer the status: they come from one place
 * (the body parser, the key guard, the rate limiter, the error mapper), not from the route. The test
 * of the document checks each against the live service once.
 */
export const SHARED_ERROR_EXAMPLES: Record<number, Record<string, ErrorExample>> = {
  400: { invalid_json: { summary: 'The body is not valid JSON', message: fastifyMessage('FST_ERR_CTP_INVALID_JSON_BODY') } },
  401: { no_key: { summary: 'No API key, or not a live one', message: new UnauthorizedError().message } },
  413: { too_large: { summary: 'The body is over BODY_LIMIT_BYTES', message: fastifyMessage('FST_ERR_CTP_BODY_TOO_LARGE') } },
  415: { not_json: { summary: 'The body is not application/json', message: fastifyMessage('FST_ERR_CTP_INVALID_MEDIA_TYPE') } },
  429: {
    rate_limit: {
      summary: "Over the plan's requests per minute",
      message:
        "Rate limit exceeded: this account's plan allows 10 requests per minute, counted across all its API keys. Retry after 42 seconds.",
    },
  },
  500: { unexpected: { summary: 'An unexpected error', message: INTERNAL_ERROR_MESSAGE } },
  503: {
    dependency: {
      summary: 'A service behind the gateway did not answer in time',
      message: dependencyTimeoutMessage(Subjects.billingReserve),
    },
  },
};

/** The key lacks the scope a route needs (ApiKeyGuard's message): shared by every route needing that scope. */
export function missingScopeExample(scope: 'generate' | 'read'): Record<string, ErrorExample> {
  return { [`missing_${scope}_scope`]: { summary: `The key lacks the "${scope}" permission`, message: `This API key lacks the "${scope}" permission.` } };
}

/** The example request id of every documented error. */
export const EXAMPLE_REQUEST_ID = '6f1c1c5e-3b1e-4a57-9c1a-6b2d0f0e9a11';

function codeOf(status: number): ErrorCode {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).find((code) => ERROR_STATUS[code] === status) ?? 'internal_error';
}

function envelopeExamples(status: number, examples: Record<string, ErrorExample>) {
  return Object.fromEntries(
    Object.entries(examples).map(([name, example]) => [
      name,
      {
        summary: example.summary,
        value: { error: { code: example.code ?? codeOf(status), status, message: example.message, request_id: EXAMPLE_REQUEST_ID } },
      },
    ]),
  );
}

/** The error envelope for each given status, with its headers and examples of what the service answers. */
export function ApiErrors(...docs: ErrorDoc[]): MethodDecorator & ClassDecorator {
  return errorResponses(docs, true);
}

/** ApiErrors for a route outside the per-account rate limit (the content host): no RateLimit-* headers. */
export function ApiUnmeteredErrors(...docs: ErrorDoc[]): MethodDecorator & ClassDecorator {
  return errorResponses(docs, false);
}

function errorResponses(docs: ErrorDoc[], rateLimited: boolean): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...docs.map((doc) => {
      const status = typeof doc === 'number' ? doc : doc.status;
      // A route's own examples come with the shared ones (a 429 of the stream limit, and of the rate limit).
      const examples = { ...(SHARED_ERROR_EXAMPLES[status] ?? {}), ...(typeof doc === 'number' ? {} : doc.examples) };
      return ApiResponse({
        status,
        description: (typeof doc === 'number' ? undefined : doc.description) ?? ERROR_DESCRIPTIONS[status],
        type: ErrorEnvelopeDto,
        headers: {
          ...COMMON_HEADERS,
          ...(status === 401 ? WWW_AUTHENTICATE : {}),
          ...(status === 429 || status === 503 ? RETRY_AFTER : {}),
          // Not on answers given before the rate limiter runs (no key, unreadable body).
          ...(!rateLimited || NO_RATE_LIMIT_HEADERS.includes(status) ? {} : RATE_LIMIT_HEADERS),
        },
        ...(Object.keys(examples).length > 0 ? { examples: envelopeExamples(status, examples) } : {}),
      });
    }),
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

