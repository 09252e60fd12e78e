import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Broadcasts, GenerationChangedBroadcast, GenerationFinishedEvent } from '@gen/contracts';
import { BatchQueue } from '@gen/persistence';
import { Broadcaster, EventPublisher } from '@gen/transport';
import { GENERATION_SETTINGS, GenerationSettings } from '../generation.tokens';
import { OutboxMessage, OutboxRepository } from './outbox.repository';
import { OUTBOX_SETTINGS, OutboxSettings } from './outbox.settings';

/**
 * Publishes outbox rows with no transaction open: a row is held by a lease while it is published,
 * and marked published afterwards (marks of many events share one asynchronous commit).
 *
 * - At once: the events a commit of this process just wrote, already leased to it (`publish`), so a
 *   finished job's event leaves without waiting for a poll.
 * - On a timer, the safety net (`kick`): rows nobody holds or whose lease ended (a failed publish,
 *   a relay that died between commit and publish, or between publish and mark), claimed a batch
 *   at a time.
 *
 * At least once: the event id is the message id, so JetStream drops a copy sent again within its
 * duplicate window, and the consumers treat a repeated event as a no-op (billing settles a job's
 * hold once, webhooks make one delivery per event id).
 */
@Injectable()
export class OutboxRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelayService.name);
  private readonly marks: BatchQueue<string, void>;
  private readonly sending = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private sweepAgain = false;
  private stopped = false;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly publisher: EventPublisher,
    private readonly broadcaster: Broadcaster,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
    @Inject(OUTBOX_SETTINGS) private readonly outboxSettings: OutboxSettings,
  ) {
    this.marks = new BatchQueue(
      async (ids) => {
        await this.outbox.markPublished(ids);
        return ids.map(() => undefined);
      },
      { maxBatch: outboxSettings.markBatch },
    );
  }

  /** The owner of this process's leases (the same name as its job leases). */
  get owner(): string {
    return this.settings.workerId;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.kick(), Math.max(250, this.settings.pollIntervalMs));
    this.timer.unref();
    this.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
    await this.settle();
  }

  /**
   * Events that a commit of this process has just written, leased to it (OutboxLease with this
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
    if (this.stopped) return;
    if (this.sweeping) {
      this.sweepAgain = true;
      return;
    }
    this.sweeping = this.sweep()
      .catch((error: unknown) => this.logger.error({ err: error }, 'Outbox relay pass failed'))
      .finally(() => {
        this.sweeping = undefined;
        if (this.sweepAgain) {
          this.sweepAgain = false;
          this.kick();
        }
      });
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
    for (;;) {
      const batch = await this.outbox.claim(this.owner, this.outboxSettings.batch, this.outboxSettings.leaseMs);
      if (batch.length === 0) return;
      const allSent = await this.send(batch);
      // A short batch was everything claimable (rows leased to other relays are theirs to publish).
      if (!allSent || batch.length < this.outboxSettings.batch) return;
    }
  }

  /**
   * Publishes events this relay holds (in parallel: no transaction, no lock is open meanwhile),
   * then marks those sent and releases the others. True when all were sent.
   */
  private async send(events: readonly OutboxMessage[]): Promise<boolean> {
    const sent = await Promise.all(events.map((event) => this.publishOne(event)));
    const failed = events.filter((_, i) => !sent[i]).map((event) => event.id);
    await Promise.all([
      ...events.filter((_, i) => sent[i]).map((event) => this.marks.push(event.id)),
      this.outbox.releaseLease(this.owner, failed),
    ]);
    return failed.length === 0;
  }

  private async publishOne(event: OutboxMessage): Promise<boolean> {
    try {
      await this.publisher.publish(event.pattern, event.payload, event.id);
    } catch (error) {
      this.logger.warn({ err: error, eventId: event.id }, 'Event not published yet; will retry');
      return false;
    }
    // Every final state passes here, whichever path finished the job (worker, cancel, operator
    // CLI, reclaim): the live status streams and the workers running a canceled job learn it now.
    const finished = event.payload as GenerationFinishedEvent;
    this.broadcaster.publish(Broadcasts.generationChanged, {
      accountId: finished.accountId,
      record: finished.record,
    } satisfies GenerationChangedBroadcast);
    return true;
  }
}
