import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { OutboxRelayService } from '../../outbox/outbox-relay.service';
import { JobFinisher } from '../job-finisher.service';
import { JobClaimer } from './job-claimer.service';
import { JobProgress } from './job-progress.service';
import { JobRunner } from './job-runner.service';
import { LeaseKeeper } from './lease-keeper.service';
import { SyncWaits } from '../sync-waits';

/**
 * Starts and stops the job runtime's pieces in their order (docs/design/architecture.md): the claimer
 * finds work and hands it to the runner; the lease keeper keeps the runs' leases; progress is
 * flushed; the finisher makes finished jobs known.
 */
@Injectable()
export class JobRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(JobRuntime.name);
  private stopping = false;

  constructor(
    private readonly claimer: JobClaimer,
    private readonly runner: JobRunner,
    private readonly leases: LeaseKeeper,
    private readonly progress: JobProgress,
    private readonly waits: SyncWaits,
    private readonly finisher: JobFinisher,
    private readonly relay: OutboxRelayService,
  ) {}

  onApplicationBootstrap(): void {
    this.leases.start();
    this.progress.start();
    this.claimer.start();
  }

  /**
   * Shutdown, step 1 (before the transports close): stop claiming, let running jobs finish for up to
   * `drainTimeoutMs` (leases kept alive meanwhile), then abort the rest and hand them back to the
   * queue at once (no waiting for lease expiry, no attempt used up). Waiters of synchronous submits
   * are then answered with the job as it stands, and the outbox is flushed.
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.leases.unwatch();
    await this.claimer.stop();
    await this.runner.drain();
    this.waits.drain();
    await this.finisher.drain();
    await this.relay.drain().catch((error: unknown) => this.logger.warn({ err: error }, 'Final outbox flush failed; another replica publishes it'));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
    await Promise.all([this.leases.stop(), this.progress.stop()]);
  }
}
