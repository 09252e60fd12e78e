export interface BatchQueueOptions {
  /** Most items one flush takes; the rest wait for the next flush. Default 100. */
  maxBatch?: number;
  /**
   * Flushes in flight at once (default 1). With 1, items pushed while a flush runs gather into the
   * next one; with more, a further flush starts at once while fewer than this many run.
   */
  maxConcurrent?: number;
  /**
   * Errors after which a failed batch of several items is run again one item at a time, so that only
   * the item that caused it fails (a value PostgreSQL refuses in one row, say). Without it, or when
   * it answers false (the database is down), every item of the batch fails with the error.
   */
  isolate?: (error: unknown) => boolean;
}

export const DEFAULT_MAX_BATCH = 100;

interface Entry<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * Group commit for one kind of write. Each caller pushes one item and awaits its own result; the
 * queue hands the items to `flush` in batches, up to `maxConcurrent` batches in flight at a time, and
 * while they run the next batch gathers. `flush` gets the items in push order and returns one result
 * per item, in the same order (an outcome the item's caller branches on, such as "insufficient"); if
 * it throws, every item of that batch rejects with the error (see `isolate`), so no caller waits
 * forever.
 *
 * After an idle period the first push waits only for the end of the current event-loop turn
 * (setImmediate): items pushed together share a batch, and a lone item adds no timer's delay.
 */
export class BatchQueue<I, O> {
  private readonly maxBatch: number;
  private readonly maxConcurrent: number;
  private readonly isolate: (error: unknown) => boolean;
  private queue: Entry<I, O>[] = [];
  private running = 0;
  private scheduled = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly flush: (items: readonly I[]) => Promise<readonly O[]>,
    options: BatchQueueOptions = {},
  ) {
    this.maxBatch = positiveInteger('maxBatch', options.maxBatch ?? DEFAULT_MAX_BATCH);
    this.maxConcurrent = positiveInteger('maxConcurrent', options.maxConcurrent ?? 1);
    this.isolate = options.isolate ?? (() => false);
  }

  /** Items pushed and not yet handed to a flush. */
  get pending(): number {
    return this.queue.length;
  }

  /** Queues one item; resolves with its own result, or rejects with its batch's (or its own) error. */
  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // Whatever else is pushed in this turn joins the batch; with every flush slot busy, the item
      // waits for the end of a flush instead.
      if (!this.scheduled && this.running < this.maxConcurrent) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.startFlushes();
        });
      }
    });
  }

  /** Resolves once every item pushed so far has its result (for shutdown and tests). */
  drain(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.running === 0 && this.queue.length === 0;
  }

  private startFlushes(): void {
    while (this.running < this.maxConcurrent && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.running++;
      void this.execute(batch).then(() => {
        this.running--;
        this.startFlushes();
        if (this.isIdle()) for (const wake of this.idleWaiters.splice(0)) wake();
      });
    }
  }

  private shouldIsolate(error: unknown): boolean {
    try {
      return this.isolate(error);
    } catch {
      return false;
    }
  }

  /** Settles every entry of the batch; never throws. */
  private async execute(batch: Entry<I, O>[]): Promise<void> {
    let results: readonly O[];
    try {
      // (A flush that throws before returning a promise is a failed batch like any other.)
      results = await Promise.resolve().then(() => this.flush(batch.map((entry) => entry.item)));
    } catch (error) {
      if (batch.length > 1 && this.shouldIsolate(error)) {
        for (const entry of batch) await this.execute([entry]);
      } else {
        for (const entry of batch) entry.reject(error);
      }
      return;
    }
    if (results.length !== batch.length) {
      const error = new Error(`BatchQueue: flush returned ${results.length} results for ${batch.length} items`);
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, i) => entry.resolve(results[i]));
  }
}
