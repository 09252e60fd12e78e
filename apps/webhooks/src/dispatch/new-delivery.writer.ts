import type { DeliveryAttemptsRepository } from '../deliveries/delivery-attempts.repository';
import type { ClaimedAttempt, NewDelivery } from '../deliveries/delivery-attempt';
import type { AttemptSlots } from './attempt-slots';

interface Waiting {
  delivery: NewDelivery;
  /** Epoch ms of `submit`. */
  since: number;
  resolve: (stored: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Stores new deliveries (events' deliveries, redeliveries, test events), grouped: those submitted
 * together are written in one statement (`insert`), up to `insertBatch` at a time and
 * `insertConcurrency` statements at once, each one a flushed commit after which their events may
 * be acknowledged.
 *
 * As many as there are free slots for new deliveries are written already claimed for attempt 1, so
 * that attempt 1 needs no second commit. When no slot is free, a delivery waits here, not stored yet
 * (its event is not acknowledged, so a crash loses nothing), for up to `admissionWaitMs`; after
 * that it is written unclaimed, and waits in the scheduler's queue for a claim of its own.
 */
export class NewDeliveryWriter {
  private readonly waiting: Waiting[] = [];
  private readonly writes = new Set<Promise<void>>();
  private flushScheduled = false;
  private timer?: NodeJS.Timeout;
  private closing = false;

  constructor(
    private readonly repository: Pick<DeliveryAttemptsRepository, 'insert'>,
    private readonly slots: AttemptSlots,
    private readonly settings: { insertBatch: number; insertConcurrency: number; admissionWaitMs: number; leaseMs: number },
    /** A batch was written: start the attempts it claimed; queue the deliveries it stored unclaimed. */
    private readonly stored: (claimed: ClaimedAttempt[], unclaimed: NewDelivery[]) => void,
  ) {}

  /** Resolves once the delivery is durable: true, or false if it already existed (see `insert`). */
  submit(delivery: NewDelivery): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.waiting.push({ delivery, since: Date.now(), resolve, reject });
      // Whatever else is submitted in this tick (a burst of events) joins the same statement.
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          this.flush();
        });
      }
    });
  }

  /** New deliveries not stored yet. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /**
   * Writes what may be written now: claimed as far as slots are free for new deliveries, the rest
   * only once it has waited `admissionWaitMs` (or at close), unclaimed. Called when deliveries
   * arrive, when a write ends and when an attempt frees its slot.
   */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writes.size < this.settings.insertConcurrency && this.waiting.length > 0) {
      const free = this.closing ? 0 : Math.min(this.slots.freeForNew(), this.settings.insertBatch);
      const count = free > 0 ? free : this.waitedLongEnough();
      if (count === 0) {
        const oldest = (this.waiting[0] as Waiting).since;
        this.timer = setTimeout(() => this.flush(), Math.max(1, oldest + this.settings.admissionWaitMs - Date.now()));
        return;
      }
      const batch = this.waiting.splice(0, count);
      const write = this.write(batch, Math.max(0, Math.min(free, batch.length))).finally(() => {
        this.writes.delete(write);
        this.flush();
      });
      this.writes.add(write);
    }
  }

  /** Writes every delivery still waiting, unclaimed, so that their events can be acknowledged. */
  async close(): Promise<void> {
    this.closing = true;
    while (this.waiting.length > 0 || this.writes.size > 0) {
      this.flush();
      await Promise.allSettled([...this.writes]);
    }
  }

  /** How many of the oldest waiting deliveries may be written unclaimed now (up to a batch). */
  private waitedLongEnough(): number {
    const cutoff = this.closing ? Infinity : Date.now() - this.settings.admissionWaitMs;
    let count = 0;
    while (count < this.waiting.length && count < this.settings.insertBatch && (this.waiting[count] as Waiting).since <= cutoff) count++;
    return count;
  }

  private async write(batch: Waiting[], claimCount: number): Promise<void> {
    const deliveries = batch.map((w) => w.delivery);
    let written: Awaited<ReturnType<DeliveryAttemptsRepository['insert']>>;
    this.slots.reserve(claimCount);
    try {
      written = await this.repository.insert(deliveries, { count: claimCount, at: Date.now(), leaseMs: this.settings.leaseMs });
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    } finally {
      this.slots.release(claimCount);
    }
    const claimed = new Set(written.claimed.map((c) => c.deliveryId));
    this.stored(
      written.claimed,
      deliveries.filter((d) => written.inserted.has(d.id) && !claimed.has(d.id)),
    );
    for (const w of batch) w.resolve(written.inserted.has(w.delivery.id));
  }
}
