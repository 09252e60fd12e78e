import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { DeliveryAttemptsRepository } from '../deliveries/delivery-attempts.repository';
import { ClaimedAttempt, NewDelivery } from '../deliveries/delivery-attempt';
import { WebhookSecretsService } from '../keys/webhook-secrets.service';
import { DeliveryMetrics, DispatcherStats } from '../metrics/delivery-metrics';
import type { ResolvedWebhooksSettings } from '../webhooks.settings';
import { WEBHOOKS_SETTINGS } from '../webhooks.tokens';
import { AttemptRunner } from './attempt-runner';
import { AttemptSlots } from './attempt-slots';
import { DueScheduler } from './due-scheduler';
import { reportFailedForGood } from './failed-delivery-log';
import { NewDeliveryWriter } from './new-delivery.writer';
import { OutcomeWriter } from './outcome.writer';
import { WebhookSender } from './webhook-sender';

/**
 * Sends deliveries' attempts on time, from the pieces below (docs/design/webhooks.md, "Following one
 * delivery"), and gives each free attempt slot to the delivery that should have it:
 *
 * - NewDeliveryWriter stores new deliveries in batches, attempt 1 already claimed while slots are free;
 * - AttemptRunner takes a claimed attempt through its states (attempt-state.ts): secret, send,
 *   verdict, outcome recorded by OutcomeWriter;
 * - DueScheduler knows when the next attempts are due (timers, and a poll as the safety net);
 * - this class claims due deliveries as slots free up (`fill`): retries first, then new deliveries
 *   stored unclaimed, then new deliveries not stored yet (the writer's, told by `slotFreed`).
 *
 * Every attempt is claimed in Postgres (`FOR UPDATE SKIP LOCKED`, a lease, the attempt counted
 * before anything is sent), so replicas, timers and the poll racing for a delivery make one attempt,
 * and a crash mid-attempt costs the attempt, never a fourth request.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly slots: AttemptSlots;
  private readonly outcomes: OutcomeWriter;
  private readonly runner: AttemptRunner;
  private readonly scheduler: DueScheduler;
  private readonly writer: NewDeliveryWriter;
  /** Claim statements in flight. */
  private readonly claims = new Set<Promise<void>>();
  private stopped = false;
  private shuttingDown?: Promise<void>;

  constructor(
    private readonly repository: DeliveryAttemptsRepository,
    private readonly sender: WebhookSender,
    secrets: WebhookSecretsService,
    @Inject(WEBHOOKS_SETTINGS) private readonly settings: ResolvedWebhooksSettings,
    @Optional() private readonly metrics?: DeliveryMetrics,
  ) {
    this.slots = new AttemptSlots(settings.maxInFlight, settings.newDeliveryPercent);
    this.outcomes = new OutcomeWriter(repository, settings);
    this.runner = new AttemptRunner({ repository, sender, secrets, outcomes: this.outcomes, slots: this.slots, metrics }, settings, {
      retryAt: (id, at) => this.scheduler.schedule(id, at),
      slotFreed: () => {
        // A free slot goes to a retry first, then to a stored new delivery, then to one not stored yet.
        this.fill();
        this.writer.flush();
      },
    });
    this.scheduler = new DueScheduler(repository, settings, {
      isRunning: (id) => this.runner.isRunning(id),
      due: () => this.fill(),
      exhausted: (deliveries) => {
        for (const d of deliveries) reportFailedForGood(this.logger, this.metrics, { ...d, deliveryId: d.id }, null);
      },
    });
    this.writer = new NewDeliveryWriter(repository, this.slots, settings, (claimed, unclaimed) => {
      this.runner.startAll(claimed);
      for (const d of unclaimed) this.scheduler.queueFresh(d.id);
      if (unclaimed.length > 0) this.fill();
    });
  }

  onApplicationBootstrap(): void {
    this.scheduler.start();
  }

  /**
   * Stops taking new attempts and waits for those in flight (each ends within its 5 s timeout).
   * Calling it again waits for the same shutdown.
   */
  onApplicationShutdown(): Promise<void> {
    this.shuttingDown ??= this.shutDown();
    return this.shuttingDown;
  }

  /**
   * Stores a new delivery, due at its `firstAttemptAt` (now), and starts attempt 1 as soon as it is
   * committed (NewDeliveryWriter). Resolves once the delivery is durable, to false if it already
   * existed (the event was seen before, or a redelivery of the job or a test of the key is pending).
   */
  submit(delivery: NewDelivery): Promise<boolean> {
    return this.writer.submit(delivery);
  }

  /** Makes delivery `id` due at `at` (see DueScheduler.schedule). */
  schedule(id: string, at: number, observedAt?: number): void {
    this.scheduler.schedule(id, at, observedAt);
  }

  /**
   * Attempts in flight, deliveries waiting for their timer or a free slot, and how late attempts
   * started against their schedule (for the benchmark and metrics).
   */
  stats(): DispatcherStats {
    const { inFlight, ...started } = this.runner.stats();
    const { timers, due, fresh } = this.scheduler.stats();
    return { inFlight, timers, due, waitingNew: fresh + this.writer.waitingCount, ...started };
  }

  private async shutDown(): Promise<void> {
    this.stopped = true;
    // Still pending in the database: the next process (or another replica) sends them.
    await this.scheduler.stop();
    // New deliveries not stored yet are stored now, unclaimed: their events can then be acknowledged.
    await this.writer.close();
    await Promise.allSettled([...this.claims]);
    await this.runner.idle();
    await this.outcomes.idle();
    await this.sender.close();
  }

  /**
   * Claims due deliveries in batches, as many as there are free slots, with `claimConcurrency`
   * claims in flight at once (each is a commit: under load, batches grow and commits overlap
   * instead of queueing). Retries go before new deliveries, which may only take their share.
   */
  private fill(): void {
    while (!this.stopped && this.scheduler.hasDue && this.claims.size < this.settings.claimConcurrency) {
      const size = Math.min(this.slots.free(), this.settings.claimBatch);
      if (size <= 0) return; // an attempt that ends calls this again
      const retries = this.scheduler.takeRetries(size);
      const ids = retries.length > 0 ? retries : this.scheduler.takeFresh(Math.min(size, this.slots.freeForNew()));
      if (ids.length === 0) return;
      this.slots.reserve(ids.length);
      const claim = this.claimAndStart(ids).finally(() => {
        this.slots.release(ids.length);
        this.claims.delete(claim);
        this.fill();
      });
      this.claims.add(claim);
    }
  }

  private async claimAndStart(ids: string[]): Promise<void> {
    let claimed: ClaimedAttempt[];
    try {
      claimed = await this.repository.claim(ids, Date.now(), this.settings.leaseMs);
    } catch (error) {
      this.logger.error({ err: error, deliveries: ids.length }, 'Could not claim due webhook deliveries; retrying');
      const retryAt = Date.now() + this.settings.notStartedRetryMs;
      for (const id of ids) this.scheduler.schedule(id, retryAt);
      return;
    }
    // Ids not claimed were taken by another replica, or are no longer due: nothing to do.
    this.runner.startAll(claimed);
  }
}
