import { ConfigError } from './env';

export interface RunningService {
  stop(): Promise<void>;
  /** Upper bound of stop(); past it (plus a margin) the process exits 1 whatever it was doing. */
  shutdownTimeoutMs?: number;
}

/**
 * An error as one line of text for a person: its message, never "undefined" (some libraries reject
 * with nothing, or with an Error without a message).
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return error.message || (typeof code === 'string' ? `${error.name} (${code})` : `${error.name} (no details given)`);
  }
  if (typeof error === 'string' && error.length > 0) return error;
  if (error === undefined || error === null || error === '') return 'an unknown error (no details given)';
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/** The stack of an unexpected error, for the lines after its description (nothing for the rest). */
export function stackOf(error: unknown): string {
  return error instanceof Error && error.stack ? error.stack.split('\n').slice(1).join('\n') : '';
}

function line(level: 'info' | 'error', service: string, msg: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ level, time: new Date().toISOString(), service, msg, ...extra }) + '\n';
}

/**
 * Runs a service's start-up; a bad configuration prints its message and exits 1 (no stack trace).
 * SIGTERM/SIGINT run its stop() once and exit 0 when it completes; a stop() that hangs past its
 * bound exits 1 so the orchestrator is never kept waiting.
 */
export function runMain(name: string, start: () => Promise<RunningService>): void {
  start()
    .then((running) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stdout.write(line('info', name, `${signal} received: draining and shutting down`));
        const watchdog = setTimeout(() => {
          process.stderr.write(line('error', name, 'shutdown did not finish in time; exiting'));
          process.exit(1);
        }, (running.shutdownTimeoutMs ?? 30_000) + 5_000);
        watchdog.unref();
        running.stop().then(
          () => {
            process.stdout.write(line('info', name, 'stopped cleanly'));
            process.exit(0);
          },
          (error: unknown) => {
            process.stderr.write(line('error', name, 'shutdown failed', { err: String((error as Error)?.stack ?? error) }));
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    })
    .catch((error: unknown) => {
      if (error instanceof ConfigError) console.error(`${name}: ${error.message}`);
      else console.error(`${name} failed to start: ${describeError(error)}\n${stackOf(error)}`.trimEnd());
      process.exit(1);
    });
}
