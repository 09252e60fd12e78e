import { BatchQueue, BatchQueueOptions } from './batch-queue';

/**
 * Who waits for an item: `interactive`, a caller holding an HTTP request open (a submit, a
 * synchronous generation); `background`, work nobody waits on right now (a batch's lines).
 */
export type Lane = 'interactive' | 'background';

/**
 * A group commit with two lanes: each lane is a `BatchQueue` of its own over the same `flush`, so
 * an interactive item never waits behind background items, neither queued nor in a flush under way;
 * it waits only for the interactive flush in flight. The two lanes' flushes may run at the same
 * time (one more connection), so `flush` must be safe beside itself, as it is for several replicas.
 * Background items still commit in groups, as fast as their own lane allows (docs/design/batches.md,
 * "Priority").
 */
export class LanedBatchQueue<I, O> {
  private readonly lanes: Record<Lane, BatchQueue<I, O>>;

  constructor(flush: (items: readonly I[]) => Promise<readonly O[]>, options: BatchQueueOptions = {}) {
    this.lanes = { interactive: new BatchQueue(flush, options), background: new BatchQueue(flush, options) };
  }

  /** Items pushed and not yet handed to a flush, both lanes. */
  get pending(): number {
    return this.lanes.interactive.pending + this.lanes.background.pending;
  }

  /** Queues one item in its lane; resolves with its own result, as `BatchQueue.push`. */
  push(item: I, lane: Lane = 'interactive'): Promise<O> {
    return this.lanes[lane].push(item);
  }

  /** Resolves once every item pushed so far, in either lane, has its result. */
  async drain(): Promise<void> {
    await Promise.all([this.lanes.interactive.drain(), this.lanes.background.drain()]);
  }
}
