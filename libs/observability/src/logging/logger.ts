import type { IncomingMessage, ServerResponse } from 'node:http';
import { Params } from 'nestjs-pino';
import pino, { DestinationStream, LevelWithSilent, LoggerOptions } from 'pino';
import { defaultLogDestination } from './pretty';
import { REDACT_PATHS, REDACTED, scrubString, scrubValue } from './redact';

/** Nest's start-up chatter (a line per module and per route): shown only at debug. */
const STARTUP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'NestMicroservice']);
const INFO = 30;

/** Set on the raw request by the HTTP hooks (observability-http.ts): what the request line reports. */
export const REQUEST_CONTEXT = Symbol.for('gen.requestContext');

export interface RequestContext {
  /** The matched route template (`/api/v1/generations/:id`), never the raw path. */
  route(): string;
  /** The authenticated account, when the request had one. */
  accountId(): string | undefined;
}

type RawRequest = IncomingMessage & { id?: unknown; originalUrl?: string; [REQUEST_CONTEXT]?: RequestContext };

export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface LoggingOptions {
  /** `service` field of every line (gateway, billing, generation, webhooks, standalone). */
  service: string;
  level: LevelWithSilent;
  /** Where lines go; stdout by default (tests pass a stream to read them). */
  destination?: DestinationStream;
}

/** Paths whose requests are not logged one by one (probes and scrapes every few seconds). */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The request's path without its query string (middleware may rewrite `url`; `originalUrl` is the client's). */
function pathOf(req: { url?: string; originalUrl?: string }): string {
  const path = (req.originalUrl ?? req.url ?? '/').split('?')[0];
  return scrubString(path);
}

/** The whole response was handed to the socket (not the case when the client went away first). */
function answered(res: ServerResponse): boolean {
  return res.writableEnded;
}

/**
 * What the request line says happened: a request whose client disconnected before it was answered
 * is "aborted" (with no status: none was sent), one refused for arriving too slowly "timed out".
 */
export function requestOutcome(res: ServerResponse): string {
  if (!answered(res)) return 'request aborted';
  if (res.statusCode === 408) return 'request timed out';
  return 'request completed';
}

/** pino options shared by the request logger and the application logger. */
export function pinoOptions(options: LoggingOptions): LoggerOptions {
  return {
    level: options.level,
    base: { service: options.service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    hooks: {
      // Every argument (message, merged object, error) is scrubbed of credential-shaped strings.
      // Logging never throws into the caller: a value that cannot be scrubbed is dropped instead.
      logMethod(args, method, level) {
        const first = args[0] as unknown;
        if (level === INFO && first && typeof first === 'object' && STARTUP_CONTEXTS.has(String((first as { context?: unknown }).context)) && !this.isLevelEnabled('debug')) {
          return;
        }
        let scrubbed: Parameters<typeof method>;
        try {
          scrubbed = args.map((arg) => scrubValue(arg)) as Parameters<typeof method>;
        } catch {
          scrubbed = [typeof args[args.length - 1] === 'string' ? scrubString(args[args.length - 1] as string) : 'log line dropped: unserializable'];
        }
        method.apply(this, scrubbed);
      },
    },
    serializers: {
      err: pino.stdSerializers.err,
      // Only what an operator needs: never headers (credentials live there), never the query string.
      req: (req: { method?: string; url?: string; raw?: RawRequest }) => ({ method: req.method, path: pathOf(req.raw ?? req) }),
      // The request line carries `status` itself (read when the response is done).
      res: () => undefined,
    },
  };
}

/**
 * nestjs-pino's settings: one JSON line per request (request id, account id, route, status,
 * duration) and Nest's own logs through the same pino logger, all redacted.
 */
export function loggerParams(options: LoggingOptions): Params {
  const context = (req: IncomingMessage) => (req as RawRequest)[REQUEST_CONTEXT];
  const requestFields = (req: IncomingMessage, res: ServerResponse, fields: object) => ({
    ...fields,
    route: context(req)?.route() ?? 'unmatched',
    accountId: context(req)?.accountId(),
    // No status for a request the client gave up on before any answer (Node's default 200 is not one).
    status: answered(res) || res.headersSent ? res.statusCode : null,
  });
  const httpOptions = {
    ...pinoOptions(options),
    // Fastify's request id (from a safe X-Request-Id, or a new UUID) is already on the raw request.
    genReqId: (req: IncomingMessage) => String((req as RawRequest).id ?? ''),
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'requestId', responseTime: 'durationMs' },
    autoLogging: { ignore: (req: IncomingMessage) => QUIET_PATHS.has(pathOf(req as RawRequest)) },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
      error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 || !answered(res) ? 'warn' : 'info',
    customSuccessMessage: (_req: IncomingMessage, res: ServerResponse) => requestOutcome(res),
    customErrorMessage: () => 'request failed',
    customSuccessObject: requestFields,
    customErrorObject: requestFields,
  } as NonNullable<Exclude<Params['pinoHttp'], DestinationStream | unknown[]>>;
  const destination = options.destination ?? defaultLogDestination();
  return {
    pinoHttp: destination ? [httpOptions, destination] : httpOptions,
    renameContext: 'context',
  };
}

/** A standalone pino logger with the same settings (start-up and shutdown messages outside Nest). */
export function createPinoLogger(options: LoggingOptions): pino.Logger {
  const destination = options.destination ?? defaultLogDestination();
  return destination ? pino(pinoOptions(options), destination) : pino(pinoOptions(options));
}
