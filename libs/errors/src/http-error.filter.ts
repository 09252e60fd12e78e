import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { envelope } from './envelope';
import { mapHttpError } from './http-error.mapper';
import { isTransientDatabaseError } from './transient';

export { domainErrorFromFastify, mapHttpError } from './http-error.mapper';

/** Writes an error as the spec's envelope on a Fastify reply. Used by the filter and by Fastify's own hooks. */
export function sendHttpError(request: FastifyRequest, reply: FastifyReply, error: unknown, logger: Logger): void {
  const mapped = mapHttpError(error);
  if (isTransientDatabaseError(error)) {
    logger.warn({ err: error, requestId: request.id, route: request.routeOptions?.url }, 'The database was unavailable: answered 503');
  } else if (mapped.unexpected) {
    logger.error(
      { err: error, requestId: request.id, route: request.routeOptions?.url },
      'Unexpected error while handling a request',
    );
  }
  if (mapped.retryAfterSeconds !== undefined) {
    void reply.header('Retry-After', String(mapped.retryAfterSeconds));
  }
  void reply
    .status(mapped.status)
    .header('Content-Type', 'application/json; charset=utf-8')
    .send(envelope(mapped.code, mapped.message, String(request.id)));
}

/** The one global HTTP filter: every error of every route leaves as the envelope. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendHttpError(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), exception, this.logger);
  }
}
