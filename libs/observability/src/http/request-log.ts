import type { FastifyReply, FastifyRequest } from 'fastify';
import type pino from 'pino';
import { ERROR_LEVEL } from '../logging/log-output';
import { scrubString } from '../logging/redact';

/** Routes whose requests are not logged one by one (probes and scrapes every few seconds). */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The matched route template (`/api/v1/generations/:id`), never the raw path. Fastify builds a new
 * `routeOptions` object on each read: read it once per request.
 */
export function routeOf(request: FastifyRequest): string {
  return request.routeOptions?.url ?? UNMATCHED_ROUTE;
}

/** Route parameters that are credentials (a provider callback's URL token): their values are never logged. */
const SECRET_PARAM = /^(?:token|secret|\w+Token|\w+Secret)$/;

/**
 * The request's path without its query string (where secrets would be), scrubbed of credential
 * shapes. On a route with a secret parameter (`/provider-callbacks/:provider/:token`) the path is
 * the route with the other parameters filled in and the secret one `[redacted]`: a random token has
 * no shape to scrub.
 */
function pathOf(request: FastifyRequest, route: string): string {
  if (route !== UNMATCHED_ROUTE && /:\w+/.test(route)) {
    const names = [...route.matchAll(/:(\w+)/g)].map((match) => match[1]);
    if (names.some((name) => SECRET_PARAM.test(name))) {
      const params = (request.params ?? {}) as Record<string, unknown>;
      return route.replace(/:(\w+)/g, (_whole, name: string) => (SECRET_PARAM.test(name) ? '[redacted]' : scrubString(String(params[name] ?? ''))));
    }
  }
  const url = request.url;
  const query = url.indexOf('?');
  return scrubString(query < 0 ? url : url.slice(0, query));
}

/**
 * What the request line says happened: a request whose client disconnected before it was answered
 * is "aborted", one refused for arriving too slowly "timed out".
 */
export function requestOutcome(answered: boolean, statusCode: number): string {
  if (!answered) return 'request aborted';
  if (statusCode === 408) return 'request timed out';
  return 'request completed';
}

/** A request whose client went away before its answer, logged once the answer was ready. */
export interface AbandonedRequest {
  /** How long after the request started its client closed the connection. */
  clientGoneAfterMs: number;
  /** The answer that could not be sent: its status and, for a generation, the job's id and state. */
  unsent: { status: number; job?: { id: string; status: string } };
}

/**
 * The answer a request would have had, from its serialized payload: the status and, when the body
 * is a generation record (a submit, a read, a cancel), the job's id and state.
 */
export function unsentAnswer(statusCode: number, payload: unknown): AbandonedRequest['unsent'] {
  if (typeof payload !== 'string' || payload.length > 65_536 || !payload.startsWith('{')) return { status: statusCode };
  try {
    const body = JSON.parse(payload) as { id?: unknown; status?: unknown };
    return typeof body.id === 'string' && typeof body.status === 'string'
      ? { status: statusCode, job: { id: body.id, status: body.status } }
      : { status: statusCode };
  } catch {
    return { status: statusCode };
  }
}

/**
 * The one log line of each HTTP request, written when its response has been sent (or its client
 * went away): request id, method and path, route template, account, status and duration. Built from
 * these fields only (never headers, body or query string), so it needs no redaction walk.
 */
export class RequestLog {
  constructor(
    private readonly logger: pino.Logger,
    private readonly accountIdOf: (request: FastifyRequest) => string | undefined,
    /** Told of each line at error level (a 5xx), so it is not held in a buffer (ServiceLogs.afterLine). */
    private readonly afterLine?: (level: number) => void,
  ) {}

  /**
   * `route`: routeOf(request); `answered`: the whole response was handed to the socket (not the
   * case when the client left first).
   */
  write(request: FastifyRequest, reply: FastifyReply, route: string, answered: boolean, abandoned?: AbandonedRequest): void {
    if (QUIET_ROUTES.has(route)) return;
    const statusCode = reply.statusCode;
    // A request its client left is a warning whatever answer it missed (that answer is in `unsent`).
    const level = !answered ? 'warn' : statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'info';
    if (!this.logger.isLevelEnabled(level)) return;
    this.logger[level](
      {
        requestId: request.id,
        req: { method: request.method, path: pathOf(request, route) },
        durationMs: Math.round(reply.elapsedTime),
        route,
        accountId: this.accountIdOf(request),
        // No status for a request its client gave up on before any answer (Node's default 200 is not one).
        status: answered || reply.raw.headersSent ? statusCode : null,
        // Its client left while it ran: when, and the answer it would have had (for a submit, its job).
        ...(abandoned ? { clientGoneAfterMs: abandoned.clientGoneAfterMs, unsent: abandoned.unsent } : {}),
      },
      requestOutcome(answered, statusCode),
    );
    if (level === 'error') this.afterLine?.(ERROR_LEVEL);
  }
}
