import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DomainError, HttpErrorFilter, ValidationError } from '@gen/errors';
import { requestIdFor } from './request-id';
import { setupOpenApi } from './openapi';
import { createValidationPipe } from './validation';

export function createFastifyAdapter(bodyLimitBytes: number, trustProxy: boolean | number | string = false): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: bodyLimitBytes,
    genReqId: requestIdFor,
    requestIdHeader: false,
    trustProxy,
    return503OnClosing: true,
    logger: false,
  });
}

/**
 * Everything the public HTTP surface needs on top of the routes: the envelope on every error path
 * (including those Fastify raises before a route runs), validation, and X-Request-Id on every response.
 */
export function configureHttpApp(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Request-Id', String(request.id));
  });
  // The API speaks JSON only: other parsers (Nest registers urlencoded) must not reach a route.
  // A JSON body must be an object (or absent); arrays and scalars fail validation clearly.
  fastify.addHook('preValidation', async (request) => {
    const body: unknown = request.body;
    const contentType = request.headers['content-type'];
    if (body !== undefined && contentType !== undefined && !/^application\/json\b/i.test(contentType)) {
      throw new DomainError('unsupported_media_type', 'Unsupported Content-Type; send the body as application/json.');
    }
    if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
      throw new ValidationError('The request body must be a JSON object.');
    }
  });
  // Unknown routes: Nest's own not-found handler throws NotFoundException into HttpErrorFilter.
  // Errors Fastify raises before a route (body parsing, limits) reach Nest's handler and HttpErrorFilter.
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  // No enableShutdownHooks(): signals are handled by the process's own drain (runMain, standalone
  // main), which turns readiness off and lets requests in flight finish before app.close().
  setupOpenApi(app);
}
