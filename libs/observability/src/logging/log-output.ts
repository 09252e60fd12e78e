import { writeSync } from 'node:fs';
import pino, { DestinationStream } from 'pino';

/** How JSON log lines reach stdout. */
export interface LogOutputSettings {
  /**
   * Lines are collected up to this many characters and handed to stdout in one asynchronous write
   * (proposed LOG_BUFFER_BYTES): one system call for a few dozen lines instead of one per line.
   */
  bufferBytes: number;
  /** The longest a line waits in the buffer when traffic is light (proposed LOG_FLUSH_MS). */
  flushDelayMs: number;
  /**
   * What may wait for a slow reader of stdout (a stalled log shipper) before lines are dropped:
   * memory stays bounded and the event loop never blocks on a full pipe (proposed LOG_MAX_PENDING_BYTES).
   */
  maxPendingBytes: number;
}

export const LOG_OUTPUT_DEFAULTS: LogOutputSettings = {
  bufferBytes: 4096,
  flushDelayMs: 25,
  maxPendingBytes: 16 * 1024 * 1024,
};

/** A destination that holds lines back, and can let them go at once. */
export interface FlushableDestination extends DestinationStream {
  /** Hands what is held to the asynchronous write now, in order. */
  flush(): void;
  /** Writes what is held before returning (the process may be about to end). */
  flushSync(): void;
}

export function isFlushable(destination: DestinationStream): destination is FlushableDestination {
  const candidate = destination as Partial<FlushableDestination>;
  return typeof candidate.flush === 'function' && typeof candidate.flushSync === 'function';
}

/** pino's level numbers. */
export const ERROR_LEVEL = 50;
export const FATAL_LEVEL = 60;

/**
 * What a line at `level` asks of a buffering destination: an error line leaves at once instead of
 * waiting for the batch; a fatal line (the process is going down) is written before the call returns.
 */
export function flushAfter(destination: FlushableDestination, level: number): void {
  if (level >= FATAL_LEVEL) destination.flushSync();
  else if (level >= ERROR_LEVEL) destination.flush();
}

/** What BufferedLogOutput writes to: stdout through pino's asynchronous SonicBoom, or a stand-in in tests. */
export interface LogSink {
  /** Writes `chunk` asynchronously (after the write in flight, if any). */
  write(chunk: string): unknown;
  /** Writes what earlier `write` calls left queued, then `rest`, before returning. */
  flushSync(rest: string): void;
}

/**
 * Log lines collected in memory and written to a sink in batches: a batch leaves when it reaches
 * `bufferBytes` or `flushDelayMs` after its first line, whichever comes first, or when `flush` is
 * called (an error line). `flushSync` writes everything before returning (exit, a fatal line,
 * termination signals).
 */
export class BufferedLogOutput implements FlushableDestination {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: LogSink,
    private readonly settings: LogOutputSettings = LOG_OUTPUT_DEFAULTS,
  ) {}

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= this.settings.bufferBytes) {
      this.handOver();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(this.onTimer, this.settings.flushDelayMs);
      // A buffered line never keeps the process alive: exit hooks write it (processLogOutput).
      this.timer.unref();
    }
  }

  flush(): void {
    this.handOver();
  }

  flushSync(): void {
    // What is held is written here and now, not handed to the asynchronous path: the process may
    // be about to end (exit, a signal, a fatal error).
    const rest = this.pending;
    this.pending = '';
    try {
      this.sink.flushSync(rest);
    } catch {
      // stdout is gone (closed pipe): nothing left to write to.
    }
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.handOver();
  };

  private handOver(): void {
    if (this.pending.length === 0) return;
    const chunk = this.pending;
    this.pending = '';
    this.sink.write(chunk);
  }
}

let stdoutOutput: BufferedLogOutput | undefined;

/**
 * The process's JSON log output on stdout, shared by every logger of the process (several Nest
 * applications in one process write to one fd). Created on first use; its settings are those of
 * the first caller. It is written asynchronously, and flushed synchronously when the process exits
 * (process.exit, the end of the event loop, an uncaught exception) and on SIGTERM and SIGINT, so a
 * crash or a kill does not lose the last lines.
 */
export function processLogOutput(settings: LogOutputSettings = LOG_OUTPUT_DEFAULTS): BufferedLogOutput {
  if (stdoutOutput) return stdoutOutput;
  // minLength 0: the batching is done above; SonicBoom writes each batch at once, or right after
  // the write in flight.
  const sonic = pino.destination({ dest: 1, sync: false, minLength: 0, maxLength: settings.maxPendingBytes });
  const sink: LogSink = {
    write: (chunk) => sonic.write(chunk),
    flushSync: (rest) => {
      sonic.flushSync();
      writeAllSync(1, rest);
    },
  };
  const output = new BufferedLogOutput(sink, settings);
  stdoutOutput = output;
  installFlushOnExit(output);
  return output;
}

const BLOCKED_RETRY_MS = 5;
const BLOCKED_GIVE_UP_MS = 2_000;

/**
 * Writes all of `text` to `fd` before returning. A non-blocking pipe whose reader is behind answers
 * EAGAIN: retried for a bounded time, since this runs while the process is ending.
 */
export function writeAllSync(fd: number, text: string): void {
  if (text.length === 0) return;
  let bytes = Buffer.from(text, 'utf8');
  const nap = new Int32Array(new SharedArrayBuffer(4));
  let waitedMs = 0;
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'EAGAIN' && code !== 'EBUSY') || waitedMs >= BLOCKED_GIVE_UP_MS) throw error;
      Atomics.wait(nap, 0, 0, BLOCKED_RETRY_MS);
      waitedMs += BLOCKED_RETRY_MS;
    }
  }
}

/**
 * Flushes `output` when the process ends. Prepended, so the buffer is handed over before pino's own
 * exit hook ends its stream. A signal with no other listener keeps its default meaning: once the
 * lines are written the process is terminated by the same signal again.
 */
export function installFlushOnExit(output: Pick<FlushableDestination, 'flushSync'>, target: NodeJS.Process = process): void {
  const flush = () => output.flushSync();
  target.prependListener('beforeExit', flush);
  target.prependListener('exit', flush);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const onSignal = () => {
      flush();
      if (target.listenerCount(signal) === 1) {
        target.removeListener(signal, onSignal);
        target.kill(target.pid, signal);
      }
    };
    target.prependListener(signal, onSignal);
  }
}
