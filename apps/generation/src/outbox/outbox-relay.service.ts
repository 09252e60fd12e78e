import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Broadcasts, GenerationChangedBroadcast, GenerationFinishedEvent } from '@gen/contracts';
import { Broadcaster, EventPublisher } from '@gen/transport';
import { GENERATION_SETTINGS, GenerationSettings } from '../generation.tokens';
import { JobsRepository } from '../jobs/jobs.repository';
import type { OutboxEventEntity } from './outbox-event.entity';

const BATCH = 50;

/**
 * Publishes outbox rows: kicked right after a job finishes, and on a timer for anything left over
 * (a publish that failed, a process that died between commit and publish). The event id is the
 * message id, so a row published twice is delivered once by JetStream.
 */
@Injectable()
export class OutboxRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelayService.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly publisher: EventPublisher,
    private readonly broadcaster: Broadcaster,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.kick(), Math.max(250, this.settings.pollIntervalMs));
    this.timer.unref();
    this.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Runs a relay pass now (or right after the current one). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: unknown) => this.logger.error({ err: error }, 'Outbox relay pass failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Publishes everything pending; resolves when the outbox is empty or a publish failed. */
  async drain(): Promise<void> {
    for (;;) {
      const { size, published } = await this.jobs.inTransaction(async (tx) => {
        const batch = await this.jobs.pendingOutbox(tx, BATCH);
        const done: OutboxEventEntity[] = [];
        for (const row of batch) {
          try {
            await this.publisher.publish(row.pattern, row.payload, row.id);
            done.push(row);
          } catch (error) {
            this.logger.warn({ err: error, eventId: row.id }, 'Event not published yet; will retry');
            await this.jobs.markPublished(tx, done.map((r) => r.id));
            await this.jobs.markPublishFailed(tx, [row.id]);
            return { size: -1, published: done };
          }
        }
        await this.jobs.markPublished(tx, done.map((r) => r.id));
        return { size: batch.length, published: done };
      });
      // Every final state passes here, whichever path finished the job (worker, cancel, operator
      // CLI, reclaim): the live status streams and the workers running a canceled job learn it now.
      for (const row of published) {
        const event = row.payload as GenerationFinishedEvent;
        this.broadcaster.publish(Broadcasts.generationChanged, { accountId: event.accountId, record: event.record } satisfies GenerationChangedBroadcast);
      }
      // A short batch was everything pending (rows locked by another relay are theirs to publish).
      if (size < BATCH) return;
    }
  }
}
