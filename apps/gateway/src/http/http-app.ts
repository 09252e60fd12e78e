import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { HttpLimits } from '@gen/config';
import { DomainError, HttpErrorFilter, ValidationError } from '@gen/errors';
import type { FastifyRequest } from 'fastify';
import { checkJsonBody, refuseNulCharacters } from './json-body';
import { requestIdFor } from './request-id';
import { checkContentEncoding, handleClientError, handleFrameworkError, withBodyDeadline } from './request-limits';
import { setupOpenApi } from './openapi';
import { createValidationPipe } from './validation';

/** Limits every public HTTP server keeps to, whatever its configuration. */
const ROUTER_LIMITS = { maxParamLength: 100 };

export function createFastifyAdapter(limits: HttpLimits, trustProxy: boolean | number | string = false): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: limits.bodyLimitBytes,
    genReqId: requestIdFor,
    requestIdHeader: false,
    trustProxy,
    return503OnClosing: true,
    logger: false,
    routerOptions: ROUTER_LIMITS,
    // Slow headers: Node answers them through clientError (below). It checks every
    // connectionsCheckingInterval, so that interval is kept well under the timeout.
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4)),
    },
    // Slow bodies are refused by withBodyDeadline (an envelope while the socket is still usable);
    // this is the backstop that closes a connection whose request never completes at all.
    requestTimeout: limits.headersTimeoutMs + limits.bodyTimeoutMs + 5_000,
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  });
}

/**
 * Everything the public HTTP surface needs on top of the routes: the envelope on every error path
 * (including those Fastify and Node raise before a route runs), validation, and X-Request-Id on every
 * response.
 */
export function configureHttpApp(app: NestFastifyApplication, limits: HttpLimits): void {
  const adapter = app.getHttpAdapter() as FastifyAdapter;
  const fastify = adapter.getInstance();
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Request-Id', String(request.id));
  });
  // Fastify answers a malformed path that matches no route straight from its not-found handler,
  // without onRequest hooks: the id is set again on the way out.
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('X-Request-Id')) void reply.header('X-Request-Id', String(request.id));
    return payload;
  });
  fastify.addHook('preParsing', async (request, reply, payload) => {
    checkContentEncoding(request);
    return withBodyDeadline(request, reply, payload, limits.bodyTimeoutMs);
  });
  // The API speaks JSON only, through one parser that checks what JSON.parse would not: the charset,
  // UTF-8 validity and nesting depth. Any other content type with a body is 415 (Fastify's defaults
  // and Nest's urlencoded parser are not registered).
  fastify.removeAllContentTypeParsers();
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  adapter.useBodyParser('application/json', false, { bodyLimit: limits.bodyLimitBytes }, (request, body, done) => {
    try {
      checkJsonBody(request.headers['content-type'], body as Buffer);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    void parseJson(request as unknown as FastifyRequest, (body as Buffer).toString('utf8'), done);
  });
  // A JSON body must be an object (or absent); arrays and scalars fail validation clearly. U+0000
  // cannot be stored in PostgreSQL text: refused wherever a client can put it (body, query, path).
  fastify.addHook('preValidation', async (request) => {
    const body: unknown = request.body;
    const contentType = request.headers['content-type'];
    if (body !== undefined && contentType !== undefined && !/^application\/json\b/i.test(contentType)) {
      throw new DomainError('unsupported_media_type', 'Unsupported Content-Type; send the body as application/json.');
    }
    if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
      throw new ValidationError('The request body must be a JSON object.');
    }
    refuseNulCharacters({ body, query: request.query, params: request.params });
  });
  // Unknown routes: Nest's own not-found handler throws NotFoundException into HttpErrorFilter.
  // Errors Fastify raises before a route (body parsing, limits) reach Nest's handler and HttpErrorFilter.
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  // No enableShutdownHooks(): signals are handled by the process's own drain (runMain, standalone
  // main), which turns readiness off and lets requests in flight finish before app.close().
  setupOpenApi(app);
}
