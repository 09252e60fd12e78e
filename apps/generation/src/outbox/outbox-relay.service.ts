import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Broadcasts, Events, GenerationChangedBroadcast, GenerationFinishedEvent } from '@gen/contracts';
import { OutboxRelay } from '@gen/persistence';
import { Broadcaster, EventPublisher } from '@gen/transport';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { OutboxMessage, OutboxRepository } from './outbox.repository';
import { OUTBOX_SETTINGS, OutboxSettings } from '../config/outbox.settings';

/**
 * The generation service's outbox relay (the shared `OutboxRelay`): a finished job's event leaves at
 * once from the process that committed it (`publish`), and the poll is the safety net. Consumers
 * treat a repeated event as a no-op (billing settles a job's hold once, webhooks make one delivery
 * per event id).
 */
@Injectable()
export class OutboxRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly relay: OutboxRelay;

  constructor(
    outbox: OutboxRepository,
    publisher: EventPublisher,
    broadcaster: Broadcaster,
    @Inject(GENERATION_SETTINGS) settings: GenerationSettings,
    @Inject(OUTBOX_SETTINGS) outboxSettings: OutboxSettings,
  ) {
    this.relay = new OutboxRelay(outbox, {
      name: 'Outbox relay',
      // The owner of this process's leases: the same name as its job leases.
      owner: settings.workerId,
      pollMs: Math.max(250, settings.pollIntervalMs),
      batch: outboxSettings.batch,
      leaseMs: outboxSettings.leaseMs,
      markBatch: outboxSettings.markBatch,
      retentionMs: outboxSettings.retentionMs,
      publish: (event) => publisher.publish(event.pattern, event.payload, event.id),
      // Every final state passes here, whichever path finished the job (worker, cancel, operator
      // CLI, reclaim): the live status streams and the workers running a canceled job learn it now.
      published: (event) => {
        // A batch's end (batch.completed) is no generation's change.
        if (event.pattern === Events.batchCompleted) return;
        const finished = event.payload as GenerationFinishedEvent;
        broadcaster.publish(Broadcasts.generationChanged, {
          accountId: finished.accountId,
          record: finished.record,
        } satisfies GenerationChangedBroadcast);
      },
    });
  }

  /** The owner of this process's leases (the same name as its job leases). */
  get owner(): string {
    return this.relay.owner;
  }

  onApplicationBootstrap(): void {
    this.relay.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.relay.stop();
  }

  /** Events a commit of this process has just written, leased to it: published now (see OutboxRelay). */
  publish(events: readonly OutboxMessage[]): void {
    this.relay.publish(events);
  }

  /** Runs a poll pass now (or right after the current one). */
  kick(): void {
    this.relay.kick();
  }

  /** Publishes everything publishable now (shutdown, tests). */
  drain(): Promise<void> {
    return this.relay.drain();
  }
}
