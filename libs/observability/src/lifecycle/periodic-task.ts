import { Logger } from '@nestjs/common';

export interface PeriodicTaskOptions {
  /** Names the task in its logs ("Outbox relay pass"). */
  name: string;
  /** The wait between the end of one run and the start of the next, in milliseconds. */
  intervalMs: number;
  /** The work. A throw or a rejection is logged (`onError`), and the next run comes as usual. */
  run: () => unknown;
  /**
   * Each wait is `intervalMs` times a random factor between 1 - jitter and 1 + jitter (0 to 1,
   * default 0), so that replicas started together do not run in step.
   */
  jitter?: number;
  /** Run once as soon as `start` is called, instead of after the first wait. Default false. */
  runAtStart?: boolean;
  /** What a failed run does; default: logs the error with "<name> failed". */
  onError?: (error: unknown) => void;
}

/**
 * A piece of work run every `intervalMs` on an unref'd timer (it never keeps the process alive).
 *
 * - Runs never overlap: the next wait starts when a run ends, and `trigger` while a run is under way
 *   asks for exactly one more run right after it (however many times it is called meanwhile).
 * - A failed run is logged and never becomes an unhandled rejection.
 * - `stop` clears the timer and resolves once the run under way (if any) has ended; nothing runs
 *   after it until `start` is called again.
 */
export class PeriodicTask {
  private readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private current?: Promise<void>;
  private again = false;
  private started = false;
  private stopped = false;
  /** Callers of `runNow` waiting for the next run to start and end. */
  private waiters: (() => void)[] = [];

  constructor(private readonly options: PeriodicTaskOptions) {
    const { intervalMs, jitter = 0 } = options;
    if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new RangeError(`${options.name}: intervalMs must be a positive number, got ${intervalMs}`);
    if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`${options.name}: jitter must be between 0 and 1, got ${jitter}`);
    this.logger = new Logger(options.name);
  }

  /** True while a run is under way. */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** Starts the timer (a second call does nothing). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    if (this.options.runAtStart) this.trigger();
    else this.arm();
  }

  /** Stops the timer and waits for the run under way; a run asked for meanwhile does not happen. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    this.again = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const wake of this.waiters.splice(0)) wake();
    await this.current;
  }

  /** A run now, or once more right after the run under way. Does nothing once stopped. */
  trigger(): void {
    if (this.stopped) return;
    if (this.current) {
      this.again = true;
      return;
    }
    this.launch();
  }

  /**
   * Like `trigger`, and resolves when a run that started after this call has ended (at once if the
   * task is stopped). A failed run resolves too: its error is logged, not thrown.
   */
  runNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const ended = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.trigger();
    return ended;
  }

  private launch(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.again = false;
    const waiters = this.waiters.splice(0);
    this.current = this.runOnce().then(() => {
      this.current = undefined;
      for (const wake of waiters) wake();
      if (this.again && !this.stopped) this.launch();
      else this.arm();
    });
  }

  /** Never rejects. */
  private async runOnce(): Promise<void> {
    try {
      await this.options.run();
    } catch (error) {
      try {
        if (this.options.onError) this.options.onError(error);
        else this.logger.error({ err: error }, `${this.options.name} failed`);
      } catch {
        // A failing error handler must not stop the task.
      }
    }
  }

  private arm(): void {
    if (!this.started || this.stopped || this.timer) return;
    const { intervalMs, jitter = 0 } = this.options;
    const wait = intervalMs * (1 + jitter * (2 * Math.random() - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.trigger();
    }, wait);
    this.timer.unref();
  }
}
