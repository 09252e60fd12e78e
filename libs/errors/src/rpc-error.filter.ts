import { Catch, Logger, RpcExceptionFilter } from '@nestjs/common';
import { Observable, throwError } from 'rxjs';
import { DomainError } from './domain-error';
import { toRpcErrorPayload } from './envelope';
import { isTransientDatabaseError } from './transient';

/**
 * The one global filter of the message transports: a handler's failure crosses the wire as the
 * envelope's fields (never a bare Error, which a Nest client would only see as "Internal server error").
 */
@Catch()
export class RpcErrorFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('RpcErrorFilter');

  catch(exception: unknown): Observable<never> {
    if (isTransientDatabaseError(exception)) {
      this.logger.warn({ err: exception }, 'The database was unavailable to a message handler: answered 503');
    } else if (!(exception instanceof DomainError) || exception.code === 'internal_error') {
      this.logger.error({ err: exception }, 'Unexpected error in a message handler');
    }
    return throwError(() => toRpcErrorPayload(exception));
  }
}
