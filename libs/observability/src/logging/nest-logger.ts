import type { LoggerService } from '@nestjs/common';
import type pino from 'pino';

/** Nest's start-up chatter (a line per module and per route): shown only at debug. */
const STARTUP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'NestMicroservice']);

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
type Write = (this: pino.Logger, object: object, ...rest: unknown[]) => void;

/** Nest's exception handlers call `error(message, stack)` (a string and a stack trace). */
function isStackTrace(level: Level, message: unknown, rest: unknown[]): message is string {
  return level === 'error' && typeof message === 'string' && rest.length === 1 && typeof rest[0] === 'string' && /\n\s*at /.test(rest[0]);
}

/**
 * Nest's LoggerService on pino: `new Logger('Jobs').warn({ err, jobId }, 'message')` becomes one
 * JSON line with `context: "Jobs"`, the fields, and the message. Nest appends the logger's context as
 * the last argument; an Error as the message is logged under `err`.
 */
export class NestPinoLogger implements LoggerService {
  constructor(readonly logger: pino.Logger) {}

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    let rest = params;
    if (params.length > 0) {
      const context = params[params.length - 1];
      if (level === 'info' && STARTUP_CONTEXTS.has(String(context)) && !this.logger.isLevelEnabled('debug')) return;
      fields.context = context;
      rest = params.slice(0, -1);
    }
    const write = this.logger[level] as Write;
    if (typeof message === 'object' && message !== null) {
      if (message instanceof Error) fields.err = message;
      else Object.assign(fields, message);
      write.call(this.logger, fields, ...rest);
    } else if (isStackTrace(level, message, rest)) {
      const err = new Error(message);
      err.stack = rest[0] as string;
      fields.err = err;
      write.call(this.logger, fields);
    } else {
      write.call(this.logger, fields, message, ...rest);
    }
  }
}
