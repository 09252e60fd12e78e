import { Logger } from '@nestjs/common';
import { PeriodicTask } from '@gen/observability';
import type { DeliveryAttemptsRepository } from '../deliveries/delivery-attempts.repository';
import type { ExhaustedDelivery } from '../deliveries/delivery-attempt';

/**
 * Deliveries failed by one pass of the poll at most, when their third attempt was interrupted. Not a
 * tuning knob: that takes a crash in the middle of a third attempt, and 100 a second clears any
 * such backlog quickly.
 */
const EXHAUSTED_PER_POLL = 100;

export interface DueSchedulerEvents {
  /** True while this process runs an attempt of the delivery: nothing to schedule for it. */
  isRunning(deliveryId: string): boolean;
  /** Deliveries became due: claim them if slots are free. */
  due(): void;
  /** The poll failed these deliveries: their third attempt was interrupted. */
  exhausted(deliveries: ExhaustedDelivery[]): void;
}

/**
 * When each delivery this process knows about is due, and which are due now.
 *
 * - A timer per delivery, for its due time (set when an attempt fails: 2 s or 6 s after the failure),
 *   so that attempts start within milliseconds of their schedule, not at the next poll. When it
 *   fires, the delivery joins the due queue and the dispatcher is told.
 * - Two due queues, in arrival order: `retries` (what a timer made due) before `fresh` (new
 *   deliveries stored unclaimed because no slot was free): retries have a schedule to keep.
 * - A poll every `pollIntervalMs` sets timers for what is due soon that no timer covers (deliveries
 *   of a process that restarted or died, or of another replica), and fails the deliveries whose
 *   third attempt was interrupted. It is the safety net, not the clock.
 *
 * Nothing here sends or claims: a due delivery is claimed in Postgres before its attempt starts.
 */
export class DueScheduler {
  private readonly logger = new Logger('WebhookDispatcher');
  /** `setAt`: when the due time was learnt, so that an older poll result cannot replace it. */
  private readonly timers = new Map<string, { at: number; setAt: number; handle: NodeJS.Timeout }>();
  private readonly retries = new Set<string>();
  private readonly fresh = new Set<string>();
  private readonly poller: PeriodicTask;
  private stopped = false;

  constructor(
    private readonly repository: Pick<DeliveryAttemptsRepository, 'dueBy' | 'failExhausted'>,
    private readonly settings: { pollIntervalMs: number; pollLimit: number },
    private readonly events: DueSchedulerEvents,
  ) {
    this.poller = new PeriodicTask({
      name: 'Webhook poll',
      intervalMs: settings.pollIntervalMs,
      runAtStart: true,
      run: () => this.pollOnce(),
      onError: (error) => this.logger.error({ err: error }, 'Webhook poll failed'),
    });
  }

  start(): void {
    this.poller.start();
  }

  /** Forgets every timer and due delivery (they stay pending in Postgres) and waits for a poll under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    const polling = this.poller.stop();
    for (const { handle } of this.timers.values()) clearTimeout(handle);
    this.timers.clear();
    this.retries.clear();
    this.fresh.clear();
    await polling;
  }

  /**
   * Makes delivery `id` due at `at` (epoch ms; now or earlier means at once). `observedAt` is when
   * that due time was read: a poll's answer older than what this process learnt since is ignored.
   */
  schedule(id: string, at: number, observedAt: number = Date.now()): void {
    if (this.stopped || this.events.isRunning(id) || this.retries.has(id) || this.fresh.has(id)) return;
    const existing = this.timers.get(id);
    if (existing) {
      if (existing.at === at || existing.setAt > observedAt) return;
      clearTimeout(existing.handle);
    }
    const handle = setTimeout(() => {
      this.timers.delete(id);
      this.retries.add(id);
      this.events.due();
    }, Math.max(0, at - Date.now()));
    handle.unref();
    this.timers.set(id, { at, setAt: observedAt, handle });
  }

  /** A new delivery stored unclaimed (no slot was free): due now, after the retries. */
  queueFresh(id: string): void {
    if (!this.stopped) this.fresh.add(id);
  }

  get hasDue(): boolean {
    return this.retries.size > 0 || this.fresh.size > 0;
  }

  /** Up to `max` due retries, oldest first, taken off the queue (those running here are dropped). */
  takeRetries(max: number): string[] {
    return take(this.retries, max, (id) => !this.events.isRunning(id));
  }

  /** Up to `max` due new deliveries, oldest first, taken off the queue. */
  takeFresh(max: number): string[] {
    return take(this.fresh, max, () => true);
  }

  stats(): { timers: number; due: number; fresh: number } {
    return { timers: this.timers.size, due: this.retries.size, fresh: this.fresh.size };
  }

  private async pollOnce(): Promise<void> {
    const exhausted = await this.repository.failExhausted(Date.now(), EXHAUSTED_PER_POLL);
    if (exhausted.length > 0) this.events.exhausted(exhausted);
    if (this.stopped) return;
    const now = Date.now();
    // Up to the poll after next: a delivery due before then gets its timer now.
    const soon = await this.repository.dueBy(now, now + 2 * this.settings.pollIntervalMs, this.settings.pollLimit);
    for (const { id, at } of soon) this.schedule(id, at, now);
  }
}

function take(queue: Set<string>, max: number, keep: (id: string) => boolean): string[] {
  const taken: string[] = [];
  for (const id of queue) {
    if (taken.length >= max) break;
    queue.delete(id);
    if (keep(id)) taken.push(id);
  }
  return taken;
}
