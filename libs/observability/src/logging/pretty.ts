import type { DestinationStream } from 'pino';

const LEVEL_LABELS: Record<string, string> = { fatal: 'FATAL', error: 'ERROR', warn: 'WARN ', info: 'INFO ', debug: 'DEBUG', trace: 'TRACE' };
/** Fields the line shows in its own place, not as key=value. */
const PLACED = new Set(['level', 'time', 'msg', 'service', 'context', 'pid', 'hostname']);

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  if (v && typeof v === 'object' && 'message' in (v as Record<string, unknown>)) {
    const e = v as { type?: string; message?: string; stack?: string };
    return JSON.stringify(`${e.type ?? 'Error'}: ${e.message ?? ''}`);
  }
  return JSON.stringify(v);
}

/** One pino JSON line as a person reads it: `12:03:04 INFO  [Context] message key=value ...`. */
export function prettyLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof record.time === 'string' ? record.time.slice(11, 19) : '';
  const level = LEVEL_LABELS[String(record.level)] ?? String(record.level).toUpperCase();
  const context = record.context ? `[${String(record.context)}] ` : '';
  const rest = Object.entries(record)
    .filter(([k, v]) => !PLACED.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${value(v)}`)
    .join(' ');
  const stack = record.err && typeof record.err === 'object' ? (record.err as { stack?: string }).stack : undefined;
  return `${time} ${level} ${context}${String(record.msg ?? '')}${rest ? `  ${rest}` : ''}${stack ? `\n${stack}` : ''}`;
}

/** A destination writing readable lines to `out` (stdout when it is a terminal). */
export function prettyDestination(out: NodeJS.WritableStream = process.stdout): DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) out.write(prettyLine(line) + '\n');
    },
  };
}

/**
 * Where log lines go when the caller names no destination: readable lines when stdout is a
 * terminal (a person at `npm start`), JSON lines otherwise (containers, files, log shippers).
 * LOG_FORMAT=json or =pretty overrides the guess.
 */
export function defaultLogDestination(env: NodeJS.ProcessEnv = process.env, stdout: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): DestinationStream | undefined {
  const format = env.LOG_FORMAT;
  if (format === 'json') return undefined;
  if (format === 'pretty' || stdout.isTTY) return prettyDestination(stdout);
  return undefined;
}
