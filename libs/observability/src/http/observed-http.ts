import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DrainState } from '../lifecycle/drain-state';
import { ServiceLogs } from '../logging/logger';
import { NestPinoLogger } from '../logging/nest-logger';
import { HttpMetrics } from '../metrics/http-metrics';
import { RequestLog, routeOf, unsentAnswer } from './request-log';

/** The authenticated account of a request, as the API key guard leaves it (`request.principal`). */
function defaultAccountId(request: FastifyRequest): string | undefined {
  const principal = (request as FastifyRequest & { principal?: { accountId?: unknown } }).principal;
  return typeof principal?.accountId === 'string' ? principal.accountId : undefined;
}

/** Set on each request by the onRequest hook: the reply, for the hook that runs when its client left. */
const REPLY = 'observedReply';
/** When the client of a request still running closed its connection (ms after the start), or null. */
const GONE = 'observedClientGone';
type ObservedRequest = FastifyRequest & { [REPLY]: FastifyReply | null; [GONE]: number | null };

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
  fastify.decorateRequest(GONE, null);
  fastify.addHook('onRequest', (request, reply, done) => {
    const observed = request as ObservedRequest;
    observed[REPLY] = reply;
    metrics.started();
    // A client that leaves after its request was read (a sync submit waiting on its job) ends no
    // request stream, so Fastify's onRequestAbort does not run: the response's close tells it.
    reply.raw.once('close', () => {
      if (observed[REPLY] !== null && !reply.raw.writableFinished) observed[GONE] = Math.round(reply.elapsedTime);
    });
    done();
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const observed = request as ObservedRequest;
    // Its client is gone: the line is written now, with the answer it missed (the job's fate).
    if (observed[GONE] !== null && observed[REPLY] !== null) {
      observed[REPLY] = null;
      metrics.finished();
      requestLog.write(request, reply, routeOf(request), false, { clientGoneAfterMs: observed[GONE], unsent: unsentAnswer(reply.statusCode, payload) });
    }
    if (drain.draining) void reply.header('Connection', 'close');
    done(null, payload);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    // Null when its line is written already (its client left before the answer).
    if ((request as ObservedRequest)[REPLY] === null) {
      done();
      return;
    }
    (request as ObservedRequest)[REPLY] = null;
    metrics.finished();
    const route = routeOf(request);
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    requestLog.write(request, reply, route, true);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    const observed = request as ObservedRequest;
    const reply = observed[REPLY];
    // Null once onResponse ran: that request was answered and has its line. Else the line waits
    // for the handler's answer (onSend above), so that it says what became of the request's job.
    if (reply && !reply.raw.writableFinished) observed[GONE] ??= Math.round(reply.elapsedTime);
    done();
  });
}
