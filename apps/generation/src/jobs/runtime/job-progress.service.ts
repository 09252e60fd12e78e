import { Inject, Injectable, Logger } from '@nestjs/common';
import { PeriodicTask } from '@gen/observability';
import { Broadcasts, GenerationChangedBroadcast } from '@gen/contracts';
import { Broadcaster } from '@gen/transport';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { toGenerationRecord } from '../job-record';
import type { JobEntity } from '../job.entity';
import { JobClaimsRepository } from '../job-claims.repository';
import { RunningJobs } from './running-jobs';

/** How often the progress engines report is saved and broadcast. */
const PROGRESS_FLUSH_MS = 1_000;

/**
 * Progress of this process's runs: what engines report is kept on the run and, once a second,
 * saved and told to the live status streams (every gateway), as is each job that starts or parks.
 */
@Injectable()
export class JobProgress {
  private readonly logger = new Logger(JobProgress.name);
  private readonly flushes = new PeriodicTask({
    name: 'Progress flush',
    intervalMs: PROGRESS_FLUSH_MS,
    run: () => this.flush(),
    onError: (error) => this.logger.warn({ err: error }, 'Saving progress failed'),
  });

  constructor(
    private readonly running: RunningJobs,
    private readonly jobs: JobClaimsRepository,
    private readonly broadcaster: Broadcaster,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  start(): void {
    this.flushes.start();
  }

  stop(): Promise<void> {
    return this.flushes.stop();
  }

  /** Tells the live status streams (every gateway) that a job of ours is processing, with its progress. */
  announce(job: JobEntity, progress: number | null): void {
    const record = toGenerationRecord({ ...job, status: 'processing', progress } as JobEntity, this.settings.cdnBaseUrl);
    this.broadcaster.publish(Broadcasts.generationChanged, { accountId: job.accountId, record } satisfies GenerationChangedBroadcast);
  }

  /** Saves the progress reported since the last flush, and tells the live status streams. */
  private async flush(): Promise<void> {
    const changed = new Map<string, number>();
    for (const run of this.running.all()) {
      if (run.progress === undefined) continue;
      changed.set(run.job.id, run.progress);
      this.announce(run.job, run.progress);
      run.progress = undefined;
    }
    await this.jobs.saveProgress(this.settings.workerId, changed);
  }
}
