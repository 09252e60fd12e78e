import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DrainState } from '../lifecycle/drain-state';
import { ServiceLogs } from '../logging/logger';
import { NestPinoLogger } from '../logging/nest-logger';
import { HttpMetrics } from '../metrics/http-metrics';
import { RequestLog, routeOf } from './request-log';

/** The authenticated account of a request, as the API key guard leaves it (`request.principal`). */
function defaultAccountId(request: FastifyRequest): string | undefined {
  const principal = (request as FastifyRequest & { principal?: { accountId?: unknown } }).principal;
  return typeof principal?.accountId === 'string' ? principal.accountId : undefined;
}

/** Set on each request by the onRequest hook: the reply, for the hook that runs when its client left. */
const REPLY = 'observedReply';
type ObservedRequest = FastifyRequest & { [REPLY]: FastifyReply | null };

/**
 * Wires the HTTP side of observability into a Fastify-based Nest application: the pino logger for
 * Nest's own logs, one log line per request, latency metrics by route and status, and
 * `Connection: close` on every response once the process is draining.
 *
 * Hooks are callback-style (no promise per hook per request). The line and the metrics are written
 * in onResponse; a request whose client went away before its response was sent never reaches
 * onResponse, so onRequestAbort writes its line.
 */
export function configureObservedHttp(
  app: NestFastifyApplication,
  options: { accountIdOf?: (request: FastifyRequest) => string | undefined } = {},
): void {
  app.useLogger(app.get(NestPinoLogger));
  app.flushLogs();
  const metrics = app.get(HttpMetrics);
  const drain = app.get(DrainState);
  const logs = app.get(ServiceLogs);
  const requestLog = new RequestLog(logs.requestLines, options.accountIdOf ?? defaultAccountId, logs.afterLine);
  const fastify = app.getHttpAdapter().getInstance();

  fastify.decorateRequest(REPLY, null);
  fastify.addHook('onRequest', (request, reply, done) => {
    (request as ObservedRequest)[REPLY] = reply;
    metrics.started();
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (drain.draining) void reply.header('Connection', 'close');
    done(null, payload);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    (request as ObservedRequest)[REPLY] = null;
    metrics.finished();
    const route = routeOf(request);
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    requestLog.write(request, reply, route, true);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    const reply = (request as ObservedRequest)[REPLY];
    // Null once onResponse ran: that request was answered and has its line.
    if (reply && !reply.raw.writableFinished) {
      (request as ObservedRequest)[REPLY] = null;
      metrics.finished();
      requestLog.write(request, reply, routeOf(request), false);
    }
    done();
  });
}
