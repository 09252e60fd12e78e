import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EventPublisher } from '@gen/transport';
import { BILLING_OUTBOX_SETTINGS } from '../billing.tokens';
import { BillingOutboxMessage, LowBalanceRepository } from './low-balance.repository';

export interface BillingOutboxSettings {
  /** How often the relay looks for unpublished rows (BILLING_OUTBOX_POLL_MS). */
  pollMs: number;
  /** How long a relay holds the rows it publishes; past it, another relay takes them (BILLING_OUTBOX_LEASE_MS). */
  leaseMs: number;
}

export const DEFAULT_BILLING_OUTBOX_SETTINGS: BillingOutboxSettings = { pollMs: 500, leaseMs: 10_000 };
const BATCH = 50;

/**
 * Publishes billing's outbox (the `account.low_balance` events the trigger writes) with no
 * transaction open: claim a batch with a lease, publish each with its id as the message id, mark.
 * At least once: a relay that dies between publish and mark leaves rows that are published again
 * when the lease ends; JetStream drops the copy within its duplicate window and every consumer keys
 * its work by the event id. Crossings are rare, so a poll (no NOTIFY) is enough.
 */
@Injectable()
export class LowBalanceRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LowBalanceRelay.name);
  private readonly owner = `billing-${randomUUID()}`;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly repository: LowBalanceRepository,
    private readonly publisher: EventPublisher,
    @Inject(BILLING_OUTBOX_SETTINGS) private readonly settings: BillingOutboxSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.kick(), this.settings.pollMs);
    this.timer.unref();
    this.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** A pass now, unless one is running. */
  kick(): void {
    if (this.running) return;
    this.running = this.drain()
      .catch((error: unknown) => this.logger.error({ err: error }, 'billing outbox pass failed'))
      .finally(() => (this.running = undefined));
  }

  /** Publishes everything claimable; resolves when nothing is left or a publish failed. */
  async drain(): Promise<void> {
    for (;;) {
      const batch = await this.repository.claim(this.owner, BATCH, this.settings.leaseMs);
      if (batch.length === 0) return;
      const sent = await Promise.all(batch.map((message) => this.publishOne(message)));
      await this.repository.markPublished(batch.filter((_, i) => sent[i]).map((m) => m.id));
      const failed = batch.filter((_, i) => !sent[i]).map((m) => m.id);
      await this.repository.release(this.owner, failed);
      if (failed.length > 0 || batch.length < BATCH) return;
    }
  }

  private async publishOne(message: BillingOutboxMessage): Promise<boolean> {
    try {
      await this.publisher.publish(message.pattern, message.payload, message.id);
      this.logger.log({ eventId: message.id, pattern: message.pattern }, 'event published');
      return true;
    } catch (error) {
      this.logger.warn({ err: error, eventId: message.id }, 'event not published yet; will retry');
      return false;
    }
  }
}
