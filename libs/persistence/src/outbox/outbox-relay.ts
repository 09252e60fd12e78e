import { Logger } from '@nestjs/common';
import { PeriodicTask } from '@gen/observability';
import { BatchQueue } from '../statements/batch-queue';
import type { OutboxMessage, OutboxStore } from './outbox-store.repository';

export interface OutboxRelayOptions {
  /** Names the relay in its logs ("Outbox relay"). */
  name: string;
  /** The owner of this relay's leases (one per process). */
  owner: string;
  /** How often the poll looks for rows nobody publishes. */
  pollMs: number;
  /** Rows claimed at a time by the poll. */
  batch: number;
  /** How long this relay holds the rows it publishes; past it, any relay takes them over. */
  leaseMs: number;
  /** Publish marks written in one statement (their commits are grouped). Default 200. */
  markBatch?: number;
  /** Publishes one event with its id as the message id; a throw means "not sent". */
  publish(message: OutboxMessage): Promise<void>;
  /** Called after each event sent (the generation service tells its live streams). */
  published?(message: OutboxMessage): void;
  /** Logs each event sent (for rare events; not on a hot path). */
  logEachPublish?: boolean;
  /**
   * How long a published event is kept (an operator reads what was sent for a job), after which it is
   * deleted; without it the outbox keeps every event it ever published.
   */
  retentionMs?: number;
}

/** How often published events past their retention are looked for. */
const PRUNE_INTERVAL_MS = 60_000;
/** Events deleted by one statement, and statements in one pass at most: a backlog goes over a few passes. */
const PRUNE_BATCH = 5_000;
const PRUNE_STATEMENTS_PER_PASS = 20;

/**
 * Publishes a service's outbox rows with no transaction open: a row is held by a lease while it is
 * published, and marked published afterwards (marks of many events share one asynchronous commit).
 *
 * - At once: the events a commit of this process just wrote, already leased to it (`publish`), so
 *   an event leaves without waiting for a poll.
 * - On a timer, the safety net (`kick`): rows nobody holds or whose lease ended (a failed publish,
 *   a relay that died between commit and publish, or between publish and mark), claimed a batch
 *   at a time.
 *
 * At least once: the event id is the message id, so JetStream drops a copy sent again within its
 * duplicate window, and the consumers treat a repeated event as a no-op.
 */
export class OutboxRelay {
  private readonly logger: Logger;
  private readonly marks: BatchQueue<string, void>;
  private readonly sending = new Set<Promise<void>>();
  private readonly poll: PeriodicTask;
  private readonly prune?: PeriodicTask;

  constructor(
    private readonly outbox: OutboxStore,
    private readonly options: OutboxRelayOptions,
  ) {
    this.logger = new Logger(options.name);
    this.marks = new BatchQueue(
      async (ids) => {
        await this.outbox.markPublished(ids);
        return ids.map(() => undefined);
      },
      { maxBatch: options.markBatch ?? 200 },
    );
    this.poll = new PeriodicTask({
      name: options.name,
      intervalMs: options.pollMs,
      runAtStart: true,
      run: () => this.sweep(),
      onError: (error) => this.logger.error({ err: error }, `${options.name} pass failed`),
    });
    const retentionMs = options.retentionMs;
    if (retentionMs !== undefined) {
      this.prune = new PeriodicTask({
        name: `${options.name} pruning`,
        intervalMs: PRUNE_INTERVAL_MS,
        runAtStart: false,
        run: () => this.prunePublished(retentionMs),
        onError: (error) => this.logger.warn({ err: error }, 'Pruning published events failed; the next pass tries again'),
      });
    }
  }

  get owner(): string {
    return this.options.owner;
  }

  /** Starts the poll (its first pass at once), and the pruning of published events past their retention. */
  start(): void {
    this.poll.start();
    this.prune?.start();
  }

  /** Stops the poll and waits for its pass under way and for the publishes started by `publish`. */
  async stop(): Promise<void> {
    await Promise.all([this.poll.stop(), this.prune?.stop()]);
    await this.settle();
  }

  /** Deletes the events published more than `retentionMs` ago, a batch at a time; how many it deleted. */
  async prunePublished(retentionMs: number): Promise<number> {
    const before = new Date(Date.now() - retentionMs);
    let deleted = 0;
    for (let statement = 0; statement < PRUNE_STATEMENTS_PER_PASS; statement++) {
      const count = await this.outbox.prunePublished(before, PRUNE_BATCH);
      deleted += count;
      if (count < PRUNE_BATCH) break;
    }
    return deleted;
  }

  /**
   * Events that a commit of this process has just written, leased to it (`OutboxLease` with this
   * relay's owner): published now. A failed publish releases them for the poll.
   */
  publish(events: readonly OutboxMessage[]): void {
    if (events.length === 0) return;
    const task: Promise<void> = this.send(events)
      .then(() => undefined)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'Publishing events failed; the poll sends them'))
      .finally(() => this.sending.delete(task));
    this.sending.add(task);
  }

  /** Runs a poll pass now (or right after the current one). */
  kick(): void {
    this.poll.trigger();
  }

  /**
   * Waits for the publishes under way, then publishes everything claimable; resolves when nothing is
   * left to claim or a publish failed (shutdown, tests).
   */
  async drain(): Promise<void> {
    await this.settle();
    await this.sweep();
    await this.marks.drain();
  }

  /** The publishes started by `publish`, and their marks, done. */
  private async settle(): Promise<void> {
    while (this.sending.size > 0) await Promise.allSettled([...this.sending]);
    await this.marks.drain();
  }

  /** Claims and publishes a batch at a time until the outbox has nothing claimable or a publish failed. */
  private async sweep(): Promise<void> {
    const { batch: size, leaseMs } = this.options;
    for (;;) {
      const batch = await this.outbox.claim(this.owner, size, leaseMs);
      if (batch.length === 0) return;
      const allSent = await this.send(batch);
      // A short batch was everything claimable (rows leased to other relays are theirs to publish).
      if (!allSent || batch.length < size) return;
    }
  }

  /**
   * Publishes events this relay holds (in parallel: no transaction, no lock is open meanwhile),
   * then marks those sent and releases the others. True when all were sent.
   */
  private async send(events: readonly OutboxMessage[]): Promise<boolean> {
    const sent = await Promise.all(events.map((event) => this.publishOne(event)));
    const failed = events.filter((_, i) => !sent[i]).map((event) => event.id);
    await Promise.all([...events.filter((_, i) => sent[i]).map((event) => this.marks.push(event.id)), this.outbox.releaseLease(this.owner, failed)]);
    return failed.length === 0;
  }

  private async publishOne(event: OutboxMessage): Promise<boolean> {
    try {
      await this.options.publish(event);
    } catch (error) {
      this.logger.warn({ err: error, eventId: event.id }, 'Event not published yet; will retry');
      return false;
    }
    if (this.options.logEachPublish) this.logger.log({ eventId: event.id, pattern: event.pattern }, 'event published');
    this.options.published?.(event);
    return true;
  }
}
