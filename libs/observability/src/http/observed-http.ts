import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { Logger } from 'nestjs-pino';
import { DrainState } from '../lifecycle/drain-state';
import { REQUEST_CONTEXT, RequestContext } from '../logging/logger';
import { HttpMetrics } from '../metrics/http-metrics';

const UNMATCHED = 'unmatched';

/** The authenticated account of a request, as the API key guard leaves it (`request.principal`). */
function defaultAccountId(request: FastifyRequest): string | undefined {
  const principal = (request as FastifyRequest & { principal?: { accountId?: unknown } }).principal;
  return typeof principal?.accountId === 'string' ? principal.accountId : undefined;
}

function routeOf(request: FastifyRequest): string {
  return request.routeOptions?.url ?? UNMATCHED;
}

/**
 * Wires the HTTP side of observability into a Fastify-based Nest application: the pino logger for
 * Nest's own logs, the request-line context (route template and account id), latency metrics by
 * route and status, and `Connection: close` on every response once the process is draining.
 */
export function configureObservedHttp(
  app: NestFastifyApplication,
  options: { accountIdOf?: (request: FastifyRequest) => string | undefined } = {},
): void {
  app.useLogger(app.get(Logger));
  app.flushLogs();
  const metrics = app.get(HttpMetrics);
  const drain = app.get(DrainState);
  const accountIdOf = options.accountIdOf ?? defaultAccountId;
  const fastify = app.getHttpAdapter().getInstance();

  fastify.addHook('onRequest', async (request) => {
    const context: RequestContext = { route: () => routeOf(request), accountId: () => accountIdOf(request) };
    (request.raw as typeof request.raw & { [REQUEST_CONTEXT]?: RequestContext })[REQUEST_CONTEXT] = context;
    metrics.inFlight.inc();
  });
  fastify.addHook('onSend', async (_request, reply, payload) => {
    if (drain.draining) void reply.header('Connection', 'close');
    return payload;
  });
  fastify.addHook('onResponse', async (request, reply) => {
    metrics.inFlight.dec();
    metrics.observe(request.method, routeOf(request), reply.statusCode, reply.elapsedTime / 1000);
  });
}
