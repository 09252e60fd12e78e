import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { HttpErrorFilter, mapHttpError } from '@gen/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OpenAiRefusal, OpenAiRefusalCode } from './openai-refusal.error';

/** The OpenAI-compatible API's prefix (docs/guide/openai-compatible.md): every error under it is in OpenAI's shape. */
export const OPENAI_PREFIX = '/openai/';

/** OpenAI's error body. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface OpenAiErrorResponse {
  status: number;
  body: OpenAiErrorBody;
  headers: Record<string, string>;
}

/** The fields of the images request: a validation message starting with one names it as `param`. */
const FIELDS = ['model', 'prompt', 'n', 'size', 'quality', 'response_format', 'user'];
/**
 * OpenAI's clients retry a 429 and a 5xx by themselves; a retry of these would fail the same way or
 * make (and charge) a second generation, so `x-should-retry: false` tells them not to.
 */
const NO_RETRY = { 'x-should-retry': 'false' };

const REFUSALS: Record<OpenAiRefusalCode, { status: number; type: string; noRetry?: boolean }> = {
  model_not_found: { status: 404, type: 'invalid_request_error' },
  model_not_supported: { status: 400, type: 'invalid_request_error' },
  invalid_value: { status: 400, type: 'invalid_request_error' },
  content_policy_violation: { status: 400, type: 'invalid_request_error' },
  generation_failed: { status: 500, type: 'server_error' },
  generation_pending: { status: 504, type: 'server_error', noRetry: true },
};

function paramOf(message: string): string | null {
  const unknown = /^([A-Za-z0-9_.$-]{1,100}): unknown field/.exec(message);
  if (unknown) return unknown[1];
  const field = /^([a-z_]+)\b/.exec(message)?.[1];
  return field !== undefined && FIELDS.includes(field) ? field : null;
}

/** Anything thrown on the OpenAI-compatible routes, as OpenAI's error: its status, type, code and `param`. */
export function toOpenAiError(error: unknown, request: { method: string; url: string }): OpenAiErrorResponse {
  if (error instanceof OpenAiRefusal) {
    const { status, type, noRetry } = REFUSALS[error.code];
    return { status, body: { error: { message: error.message, type, param: error.param, code: error.code } }, headers: noRetry ? NO_RETRY : {} };
  }
  const mapped = mapHttpError(error);
  const retryAfter: Record<string, string> = mapped.retryAfterSeconds === undefined ? {} : { 'retry-after': String(mapped.retryAfterSeconds) };
  const body = (message: string, type: string, code: string | null, param: string | null = null): OpenAiErrorBody => ({ error: { message, type, param, code } });
  switch (mapped.code) {
    case 'validation_error':
    case 'bad_request':
      return { status: 400, body: body(mapped.message, 'invalid_request_error', mapped.code === 'bad_request' ? 'invalid_request' : 'invalid_value', paramOf(mapped.message)), headers: {} };
    case 'unauthorized':
      return { status: 401, body: body(mapped.message, 'invalid_request_error', 'invalid_api_key'), headers: {} };
    case 'insufficient_credits':
    case 'spending_cap_reached':
      // OpenAI's billing error: 429 `insufficient_quota`; waiting does not help, so no retry.
      return { status: 429, body: body(mapped.message, 'insufficient_quota', mapped.code === 'insufficient_credits' ? 'insufficient_quota' : 'spending_cap_reached'), headers: { ...NO_RETRY } };
    case 'rate_limit_exceeded':
      return { status: 429, body: body(mapped.message, 'requests', 'rate_limit_exceeded'), headers: retryAfter };
    case 'not_found':
      return { status: 404, body: body(`Invalid URL (${request.method} ${request.url.split('?')[0]}); see docs/guide/openai-compatible.md for the routes served.`, 'invalid_request_error', 'unknown_url'), headers: {} };
    default:
      return {
        status: mapped.status,
        body: body(mapped.message, mapped.status >= 500 ? 'server_error' : 'invalid_request_error', mapped.code),
        headers: retryAfter,
      };
  }
}

/**
 * The global HTTP filter: under OPENAI_PREFIX, errors in OpenAI's shape (its clients read
 * `error.type`, `error.code` and `error.param`); everywhere else the service's envelope.
 */
@Catch()
export class ErrorShapeFilter implements ExceptionFilter {
  private readonly logger = new Logger('OpenAiErrors');
  private readonly envelope = new HttpErrorFilter();

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (!request.url.startsWith(OPENAI_PREFIX)) {
      this.envelope.catch(exception, host);
      return;
    }
    sendOpenAiError(request, http.getResponse<FastifyReply>(), exception, this.logger);
  }
}

/** Writes an error in OpenAI's shape on a Fastify reply: the filter's, and Fastify's own refusals before a route (http/request-limits.ts). */
export function sendOpenAiError(request: FastifyRequest, reply: FastifyReply, exception: unknown, logger: Logger): void {
  const answer = toOpenAiError(exception, request);
  if (answer.status >= 500 && !(exception instanceof OpenAiRefusal)) {
    logger.error({ err: exception, requestId: request.id, route: request.routeOptions?.url }, 'Unexpected error on the OpenAI-compatible API');
  }
  for (const [name, value] of Object.entries(answer.headers)) void reply.header(name, value);
  void reply.status(answer.status).header('Content-Type', 'application/json; charset=utf-8').send(answer.body);
}
