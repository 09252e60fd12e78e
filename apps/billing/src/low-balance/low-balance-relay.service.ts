import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { OutboxRelay } from '@gen/persistence';
import { EventPublisher } from '@gen/transport';
import { BILLING_OUTBOX_SETTINGS } from '../config/billing.tokens';
import { BillingOutboxRepository } from './billing-outbox.repository';

export interface BillingOutboxSettings {
  /** How often the relay looks for unpublished rows (BILLING_OUTBOX_POLL_MS). */
  pollMs: number;
  /** How long a relay holds the rows it publishes; past it, another relay takes them (BILLING_OUTBOX_LEASE_MS). */
  leaseMs: number;
  /** How long a published event is kept before the relay deletes it (BILLING_OUTBOX_RETENTION_HOURS). */
  retentionMs: number;
}

export const DEFAULT_BILLING_OUTBOX_SETTINGS: BillingOutboxSettings = { pollMs: 500, leaseMs: 10_000, retentionMs: 24 * 3_600_000 };
const BATCH = 50;

/**
 * Publishes billing's outbox (the `account.low_balance` events the trigger writes) with the shared
 * `OutboxRelay`: claim a batch with a lease, publish each with its id as the message id, mark.
 * At least once: a relay that dies between publish and mark leaves rows that are published again
 * when the lease ends; JetStream drops the copy within its duplicate window and every consumer keys
 * its work by the event id. Crossings are rare, so a poll (no NOTIFY) is enough.
 */
@Injectable()
export class LowBalanceRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly relay: OutboxRelay;

  constructor(outbox: BillingOutboxRepository, publisher: EventPublisher, @Inject(BILLING_OUTBOX_SETTINGS) settings: BillingOutboxSettings) {
    this.relay = new OutboxRelay(outbox, {
      name: 'Billing outbox relay',
      owner: `billing-${randomUUID()}`,
      pollMs: settings.pollMs,
      batch: BATCH,
      leaseMs: settings.leaseMs,
      retentionMs: settings.retentionMs,
      publish: (message) => publisher.publish(message.pattern, message.payload, message.id),
      logEachPublish: true,
    });
  }

  onApplicationBootstrap(): void {
    this.relay.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.relay.stop();
  }

  /** A pass now (or right after the one under way). */
  kick(): void {
    this.relay.kick();
  }

  /** Publishes everything claimable; resolves when nothing is left or a publish failed. */
  drain(): Promise<void> {
    return this.relay.drain();
  }
}
