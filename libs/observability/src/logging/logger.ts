import pino, { DestinationStream, LevelWithSilent, LoggerOptions } from 'pino';
import { ERROR_LEVEL, flushAfter, isFlushable, LOG_OUTPUT_DEFAULTS, LogOutputSettings, processLogOutput } from './log-output';
import { defaultLogDestination } from './pretty';
import { REDACT_PATHS, REDACTED, scrubString, scrubValue } from './redact';

export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface LoggingOptions {
  /** `service` field of every line (gateway, billing, generation, webhooks, standalone). */
  service: string;
  level: LevelWithSilent;
  /** Where lines go; stdout by default (tests pass a stream to read them). */
  destination?: DestinationStream;
  /** Batching of the stdout output (when no destination is given and stdout is not a terminal). */
  output?: Partial<LogOutputSettings>;
}

/**
 * Where a process's lines go: the given destination, readable lines for a terminal (pretty.ts), or
 * the process's buffered, asynchronous JSON output on stdout.
 */
export function logDestination(options: LoggingOptions): DestinationStream {
  return options.destination ?? defaultLogDestination() ?? processLogOutput({ ...LOG_OUTPUT_DEFAULTS, ...options.output });
}

/** The fields and format every line shares (level by name, ISO time, `service`, `msg`). */
function baseOptions(options: LoggingOptions): LoggerOptions {
  return {
    level: options.level,
    base: { service: options.service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
}

/**
 * Options of the application logger (Nest's logs, errors, anything a caller passes objects to):
 * pino's path-based redaction for the fields where secrets are known to live, then a walk that
 * scrubs credential-shaped strings out of every argument (an error message, a URL, a nested object
 * no path foresaw). The walk costs in proportion to what is logged, so the per-request line does
 * not go through here (request-log.ts builds it from fields that carry no secret).
 */
export function pinoOptions(options: LoggingOptions, afterLine?: (level: number) => void): LoggerOptions {
  return {
    ...baseOptions(options),
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    hooks: {
      // Logging never throws into the caller: a value that cannot be scrubbed is dropped instead.
      logMethod(args, method, level) {
        let scrubbed: Parameters<typeof method>;
        try {
          scrubbed = args.map((arg) => scrubValue(arg)) as Parameters<typeof method>;
        } catch {
          scrubbed = [typeof args[args.length - 1] === 'string' ? scrubString(args[args.length - 1] as string) : 'log line dropped: unserializable'];
        }
        method.apply(this, scrubbed);
        // An error may be the last thing the process says: it does not wait in a buffer.
        if (level >= ERROR_LEVEL) afterLine?.(level);
      },
    },
    serializers: { err: pino.stdSerializers.err },
  };
}

/** The application logger: every argument redacted and scrubbed (see pinoOptions). */
export function createPinoLogger(options: LoggingOptions, destination: DestinationStream = logDestination(options)): pino.Logger {
  const afterLine = isFlushable(destination) ? (level: number) => flushAfter(destination, level) : undefined;
  return pino(pinoOptions(options, afterLine), destination);
}

/**
 * The logger of the one line per request: same format and destination, but no redaction and no
 * scrubbing walk, because its caller only gives it fields that cannot hold a secret.
 */
export function createRequestLineLogger(options: LoggingOptions, destination: DestinationStream = logDestination(options)): pino.Logger {
  return pino(baseOptions(options), destination);
}

/**
 * A service's loggers on one destination: the application logger (Nest's logs and everything
 * services log) and the request-line logger; `afterLine` lets an error or fatal line out of the
 * destination's buffer at once (flushAfter), when the destination buffers.
 */
export class ServiceLogs {
  readonly app: pino.Logger;
  readonly requestLines: pino.Logger;
  readonly afterLine?: (level: number) => void;

  constructor(options: LoggingOptions) {
    const destination = logDestination(options);
    if (isFlushable(destination)) this.afterLine = (level) => flushAfter(destination, level);
    this.app = createPinoLogger(options, destination);
    this.requestLines = createRequestLineLogger(options, destination);
  }
}
