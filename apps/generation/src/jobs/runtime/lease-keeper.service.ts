import { Inject, Injectable, Logger } from '@nestjs/common';
import { PeriodicTask } from '@gen/observability';
import { Broadcasts, GenerationChangedBroadcast } from '@gen/contracts';
import { Broadcaster } from '@gen/transport';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { JobMetrics } from '../../metrics/job-metrics';
import { JobClaimsRepository } from '../job-claims.repository';
import { ParkedJobsWriter } from '../parked-jobs.writer';
import { CANCELED, LEASE_LOST, Run, RunningJobs } from './running-jobs';

/**
 * The leases of this process's runs: kept alive by heartbeats (a run whose job became final
 * elsewhere, or whose lease another worker holds now, is stopped), and at shutdown handed back at
 * once (no waiting for expiry, no attempt used up). Expired leases of dead workers are the
 * janitor's (`LeaseReclaimer`).
 */
@Injectable()
export class LeaseKeeper {
  private readonly logger = new Logger(LeaseKeeper.name);
  private readonly heartbeats: PeriodicTask;
  private unsubscribe?: () => void;

  constructor(
    private readonly running: RunningJobs,
    private readonly jobs: JobClaimsRepository,
    private readonly parked: ParkedJobsWriter,
    private readonly broadcaster: Broadcaster,
    private readonly metrics: JobMetrics,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {
    this.heartbeats = new PeriodicTask({
      name: 'Lease heartbeats',
      intervalMs: Math.max(100, Math.floor(settings.leaseMs / 3)),
      run: () => this.heartbeat(),
      onError: (error) => this.logger.warn({ err: error }, 'Heartbeat failed'),
    });
  }

  start(): void {
    this.heartbeats.start();
    // A job of ours that became final elsewhere (canceled through another replica, failed by an
    // operator) stops at once; the heartbeat finds the same thing later if this message is missed.
    this.unsubscribe = this.broadcaster.subscribe(Broadcasts.generationChanged, (payload) => {
      const { record } = payload as GenerationChangedBroadcast;
      if (record.status === 'completed' || record.status === 'failed') this.running.abort(record.id, CANCELED);
    });
  }

  /** Shutdown began: jobs finished elsewhere are no longer watched for (heartbeats go on while runs drain). */
  unwatch(): void {
    this.unsubscribe?.();
  }

  stop(): Promise<void> {
    return this.heartbeats.stop();
  }

  /** Jobs an admission claimed for this process after its shutdown began: back to the queue at once, for another replica. */
  releaseClaimed(jobIds: string[]): void {
    void this.jobs.release(this.settings.workerId, jobIds).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'Could not hand back jobs claimed during shutdown; their leases will expire'),
    );
  }

  /** A run aborted by shutdown: its job is handed back now, for another replica (or our restart). */
  async handBack(run: Run): Promise<void> {
    const { job } = run;
    // Its upstream job exists: parked again, due now, for any replica's scheduler (or the lease reclaim, if this fails).
    if (run.upstreamRef !== null && this.settings.providerParking && run.engine?.phases) {
      const parked = await this.parked
        .park({ jobId: job.id, owner: this.settings.workerId, delayMs: 0, submittedTotalMs: run.engine.phases.totalTimeoutMs, checked: false, progress: null, queuePosition: null })
        .catch(() => false);
      if (parked) this.metrics.handedBack(job);
      return;
    }
    // Back to the queue now.
    if (await this.jobs.handBack(job.id, this.settings.workerId)) this.metrics.handedBack(job);
  }

  private async heartbeat(): Promise<void> {
    const ids = this.running.ids();
    if (ids.length === 0) return;
    const { owned, finished } = await this.jobs.heartbeat(this.settings.workerId, ids, this.settings.leaseMs);
    const mine = new Set(owned);
    const final = new Set(finished);
    for (const id of ids) {
      if (final.has(id)) this.running.abort(id, CANCELED); // canceled or failed meanwhile
      else if (!mine.has(id)) this.running.abort(id, LEASE_LOST); // someone else has it now
    }
  }
}
