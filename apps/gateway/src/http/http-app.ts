import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { HttpLimits } from '@gen/config';
import { DomainError, domainErrorFromFastify, ValidationError } from '@gen/errors';
import type { FastifyRequest } from 'fastify';
import { checkJsonBody, refuseNulCharacters } from './json-body';
import { requestIdFor } from './request-id';
import { checkContentEncoding, handleClientError, handleFrameworkError, withBodyDeadline } from './request-limits';
import { RouteMethods } from './route-methods';
import { PROVIDER_CALLBACKS_PREFIX } from '../provider-callbacks/provider-callbacks.controller';
import { STRIPE_WEBHOOK_PATH } from '../payments/stripe-webhook.controller';
import { ProviderCallbackMetrics } from '../provider-callbacks/provider-callback-metrics';
import { setupOpenApi } from '../docs/openapi';
import { ErrorShapeFilter } from '../openai/openai-errors';
import { createValidationPipe } from './validation';
import { closeIfBodyUnread, takesRawBody } from '../http-common/raw-body';

/** The public API's prefix: its routes authenticate with a bearer API key (their 401s carry the challenge). */
const PUBLIC_API_PREFIX = '/api/';
/** RFC 6750's challenge; `error="invalid_token"` only when a credential was sent (section 3.1). */
const BEARER_CHALLENGE = 'Bearer realm="Generation Service API"';

/** Limits every public HTTP server keeps to, whatever its configuration. */
const ROUTER_LIMITS = { maxParamLength: 100 };

/**
 * Fastify's adapter, with Fastify's own errors (a body that is not JSON, too large, of another media
 * type) handed to Nest as the domain errors they stand for. Nest would otherwise wrap them in an
 * HttpException that keeps Fastify's wording and loses its error code, the only thing the envelope's
 * messages can be chosen by.
 */
class EnvelopeFastifyAdapter extends FastifyAdapter {
  override setErrorHandler(handler: Parameters<FastifyAdapter['setErrorHandler']>[0]) {
    return super.setErrorHandler(function (this: unknown, error, request, reply) {
      return handler.call(this as never, domainErrorFromFastify(error) ?? error, request, reply);
    });
  }
}

export function createFastifyAdapter(limits: HttpLimits, trustProxy: boolean | number | string = false): FastifyAdapter {
  return new EnvelopeFastifyAdapter({
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
  // Every route, as Nest and Swagger register them (after this: at init), for 405 below.
  const routes = new RouteMethods();
  fastify.addHook('onRoute', (route) => {
    routes.add(route.method, route.url ?? route.path);
    // Provider callbacks carry the provider's whole job record, Stripe's events whole objects: their own, larger limit (a route's limit wins over the parser's).
    if ((route.url ?? route.path).startsWith(PROVIDER_CALLBACKS_PREFIX) || (route.url ?? route.path) === STRIPE_WEBHOOK_PATH) route.bodyLimit = limits.callbackBodyLimitBytes ?? limits.bodyLimitBytes;
  });
  // Hooks are callback-style: no promise and no microtask per hook per request.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    // No route for this method: if the path has routes for other methods, 405 with Allow, not 404.
    if (request.is404) {
      const allowed = routes.allowed(request.url.split('?')[0]);
      if (allowed.length > 0) {
        void reply.header('Allow', allowed.join(', '));
        done(new DomainError('method_not_allowed', `This path does not accept ${request.method}; it accepts ${allowed.join(', ')}.`));
        return;
      }
    }
    done();
  });
  // Provider callbacks are counted once answered, whatever answered them (the route, or a refusal before it: too large, not JSON).
  const callbackMetrics = app.get(ProviderCallbackMetrics, { strict: false });
  fastify.addHook('onResponse', (request, reply, done) => {
    if (request.url.startsWith(PROVIDER_CALLBACKS_PREFIX)) callbackMetrics.count(request.raw, request.url.split('?')[0], reply.statusCode);
    done();
  });
  // Fastify answers a malformed path that matches no route straight from its not-found handler,
  // without onRequest hooks: the id is set again on the way out.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('X-Request-Id')) void reply.header('X-Request-Id', request.id);
    closeIfBodyUnread(request, reply);
    if (reply.statusCode === 401 && request.url.startsWith(PUBLIC_API_PREFIX)) {
      void reply.header('WWW-Authenticate', request.headers.authorization ? `${BEARER_CHALLENGE}, error="invalid_token"` : BEARER_CHALLENGE);
    }
    done(null, payload);
  });
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    try {
      checkContentEncoding(request);
      done(null, withBodyDeadline(request, reply, payload, limits.bodyTimeoutMs));
    } catch (error) {
      done(error as Error);
    }
  });
  // The API speaks JSON only, through one parser that checks what JSON.parse would not: the charset,
  // UTF-8 validity and nesting depth. Any other content type with a body is 415 (Fastify's defaults
  // and Nest's urlencoded parser are not registered).
  fastify.removeAllContentTypeParsers();
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  // The raw bytes stay on the request (`rawBody`, a reference, no copy): provider callbacks verify signatures over them.
  adapter.useBodyParser('application/json', true, { bodyLimit: limits.bodyLimitBytes }, (request, body, done) => {
    // An empty body is no body (many clients send Content-Type: application/json on every request,
    // cancel included): routes that take none accept it; a route that needs one says it is missing.
    if ((body as Buffer).length === 0) {
      done(null, undefined);
      return;
    }
    try {
      checkJsonBody(request.headers['content-type'], body as Buffer);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    void parseJson(request as unknown as FastifyRequest, (body as Buffer).toString('utf8'), done);
  });
  // Uploads take their file as the body, streamed to the storage by the route (which counts it: its
  // limit is UPLOAD_MAX_MB, not BODY_LIMIT_BYTES). Every other route keeps to JSON.
  fastify.addContentTypeParser('*', (request, payload, done) => {
    if (takesRawBody(request)) done(null, payload);
    else done(new DomainError('unsupported_media_type', 'Unsupported Content-Type; send the body as application/json.'), undefined);
  });
  // A JSON body must be an object (or absent); arrays and scalars fail validation clearly. U+0000
  // cannot be stored in PostgreSQL text: refused wherever a client can put it (body, query, path).
  fastify.addHook('preValidation', (request, _reply, done) => {
    const body: unknown = request.body;
    const contentType = request.headers['content-type'];
    if (takesRawBody(request)) {
      done();
      return;
    }
    if (body !== undefined && contentType !== undefined && !/^application\/json\b/i.test(contentType)) {
      done(new DomainError('unsupported_media_type', 'Unsupported Content-Type; send the body as application/json.'));
      return;
    }
    if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
      done(new ValidationError('The request body must be a JSON object.'));
      return;
    }
    try {
      refuseNulCharacters({ body, query: request.query, params: request.params });
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
  // Unknown routes: Nest's own not-found handler throws NotFoundException into the filter.
  // Errors Fastify raises before a route (body parsing, limits) reach Nest's handler and the filter:
  // the envelope, or OpenAI's error shape under /openai/ (docs/guide/openai-compatible.md).
  app.useGlobalFilters(new ErrorShapeFilter());
  app.useGlobalPipes(createValidationPipe());
  // No enableShutdownHooks(): signals are handled by the process's own drain (runMain, standalone
  // main), which turns readiness off and lets requests in flight finish before app.close().
  setupOpenApi(app);
}
