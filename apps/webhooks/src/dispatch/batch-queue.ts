/**
 * Group commit for the dispatcher's writes: items pushed while a flush is in flight wait and go
 * together in the next one, so under load one statement (one commit) carries many deliveries, and
 * at low load an item waits for nothing but the current tick.
 *
 * `flush` gets the items of one batch and returns one result per item, in order; if it throws,
 * every item of that batch is rejected with the error.
 */
export class BatchQueue<T, R> {
  private queue: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  private running = 0;
  private scheduled = false;
  private readonly flushes = new Set<Promise<void>>();

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly options: { maxBatch: number; maxConcurrent: number },
  ) {}

  push(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // Whatever else is pushed in this tick (a burst of events, a batch of outcomes) joins the batch.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.drain();
        });
      }
    });
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Resolves when nothing is queued or being flushed. */
  async idle(): Promise<void> {
    while (this.flushes.size > 0 || this.queue.length > 0) {
      if (this.flushes.size === 0) this.drain();
      await Promise.allSettled([...this.flushes]);
    }
  }

  private drain(): void {
    while (this.running < this.options.maxConcurrent && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.running++;
      const task = this.run(batch).finally(() => {
        this.running--;
        this.flushes.delete(task);
        this.drain();
      });
      this.flushes.add(task);
    }
  }

  private async run(batch: BatchQueue<T, R>['queue']): Promise<void> {
    try {
      const results = await this.flush(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(results[i] as R));
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }
}
