export interface BatchQueueOptions {
  /** Most items one flush takes; the rest wait for the next flush. Default 100. */
  maxBatch?: number;
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

/**
 * Group commit for one kind of write. Each caller pushes one item and awaits its own result; the
 * queue hands the items to `flush` in batches, one batch in flight at a time, and while it runs the
 * next batch gathers. `flush` gets the items in push order and returns one result per item, in the
 * same order (an outcome the item's caller branches on, such as "insufficient"); if it throws,
 * every item of that batch rejects with the error (see `isolate`), so no caller waits forever.
 *
 * After an idle period the first push waits only for the end of the current event-loop turn
 * (setImmediate): items pushed together share a batch, and a lone item adds no timer's delay.
 */
export class BatchQueue<I, O> {
  private readonly maxBatch: number;
  private readonly isolate: (error: unknown) => boolean;
  private pending: Entry<I, O>[] = [];
  private busy = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly flush: (items: readonly I[]) => Promise<readonly O[]>,
    options: BatchQueueOptions = {},
  ) {
    const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer, got ${maxBatch}`);
    this.maxBatch = maxBatch;
    this.isolate = options.isolate ?? (() => false);
  }

  /** Queues one item; resolves with its own result, or rejects with its batch's (or its own) error. */
  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.busy) {
        this.busy = true;
        setImmediate(() => void this.run());
      }
    });
  }

  /** Resolves once every item pushed so far has its result (for shutdown and tests). */
  drain(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(): Promise<void> {
    while (this.pending.length > 0) {
      await this.execute(this.pending.splice(0, this.maxBatch));
    }
    this.busy = false;
    for (const wake of this.idleWaiters.splice(0)) wake();
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
