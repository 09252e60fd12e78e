import { Inject, Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { ERROR_STATUS, DomainError, RateLimitError } from '@gen/errors';
import { PeriodicTask } from '@gen/observability';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { BATCH_FEEDER_TIMINGS } from '../config/batch-feeder.settings';
import { JobFinisher } from '../jobs/job-finisher.service';
import { JobsService } from '../jobs/runtime/jobs.service';
import { AdmittingLine, BatchFeedRepository } from './batch-feed.repository';
import { BatchEnding } from './batch-ending.service';
import { BatchHolds } from './batch-holds.service';

/**
 * Admits batch lines as jobs when their account has free parallel slots (docs/design/batches.md, "How
 * lines run"): every JOB_POLL_INTERVAL_MS, and at once when a batch is sealed or a batch job of an
 * account with a running batch finishes here. Each pass: lines left `admitting` by a crash are taken
 * again, windows that ended expire their waiting lines, each account with a running batch gets its
 * free slots' worth of lines (held in billing, then admitted as the submit admits a job), and batches
 * whose every line has an outcome end.
 */
@Injectable()
export class BatchFeeder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(BatchFeeder.name);
  private readonly task: PeriodicTask;
  /** Accounts that had a running batch at the last pass: a job of theirs finishing here nudges the feeder. */
  private feeding = new Set<string>();
  private lastSweep = 0;

  constructor(
    private readonly feed: BatchFeedRepository,
    private readonly jobs: JobsService,
    private readonly holds: BatchHolds,
    private readonly ending: BatchEnding,
    finisher: JobFinisher,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {
    this.task = new PeriodicTask({
      name: 'Batch feeder',
      intervalMs: settings.pollIntervalMs,
      // At once at start: lines a crash left `admitting` are taken again without waiting a poll.
      runAtStart: true,
      run: () => this.pass(),
      onError: (error) => this.logger.error({ err: error }, 'Feeding batches failed'),
    });
    finisher.onFinished((job) => {
      if (this.feeding.has(job.accountId)) this.nudge();
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** Looks now (or right after the pass under way). */
  nudge(): void {
    this.task.trigger();
  }

  /** Deletes the batches never sealed within ten minutes (their gateway died while sending them); nothing was held for them. */
  async sweepUnsealed(): Promise<number> {
    this.lastSweep = Date.now();
    return this.feed.deleteUnsealed(BATCH_FEEDER_TIMINGS.unsealedMaxAgeMs);
  }

  private async pass(): Promise<void> {
    if (Date.now() - this.lastSweep >= BATCH_FEEDER_TIMINGS.unsealedSweepMs) await this.sweepUnsealed();
    for (const line of await this.feed.takeStale(BATCH_FEEDER_TIMINGS.staleAdmittingMs, BATCH_FEEDER_TIMINGS.staleBatch)) {
      await this.attempt(line, () => (line.jobExists ? this.admitted(line) : this.admit(line)));
    }
    const accounts = await this.feed.runningAccounts();
    this.feeding = new Set(accounts);
    // No batch running (the usual case): two cheap statements a pass, nothing more.
    if (accounts.length === 0) return;
    await this.feed.settleLines();
    await this.feed.expireLines();
    for (const accountId of accounts) {
      const lines = await this.feed.takeLines(accountId, this.settings.batchMaxInFlight);
      // Side by side, as concurrent submits: billing batches their holds and the admission writer
      // group-commits their jobs (one after another, a 20,000-line batch would wait on round trips).
      await inParallel(lines, BATCH_FEEDER_TIMINGS.admissionsAtOnce, (line) => this.attempt(line, () => this.admit(line)));
    }
    await this.ending.endAll();
  }

  /** A line whose admission failed to ask (billing or the database unavailable) stays `admitting`: taken again once stale. */
  private async attempt(line: AdmittingLine, admit: () => Promise<void>): Promise<void> {
    try {
      await admit();
    } catch (error) {
      this.logger.warn({ err: error, batchId: line.batch.id, line: line.line }, 'Admitting a batch line failed; it is taken again later');
    }
  }

  /** Holds the line's credits, then admits its job; a refusal ends the line with nothing charged. */
  private async admit(line: AdmittingLine): Promise<void> {
    if (line.batch.status === 'canceling' || line.batch.canceled_at) {
      // A crash may have left it held: released first, so that a failed release leaves the line to be taken again.
      await this.holds.release(line, 'batch canceled');
      await this.feed.markEnded(line.batch.id, line.line, line.jobId, 'canceled', 'canceled', 'The batch was canceled before this line ran.');
      return;
    }
    try {
      await this.holds.reserve(line);
    } catch (error) {
      if (!isRefusal(error)) throw error; // left `admitting`: taken again once stale
      await this.feed.markEnded(line.batch.id, line.line, line.jobId, 'failed', error.code, error.message);
      return;
    }
    try {
      await this.jobs.submit({
        jobId: line.jobId,
        accountId: line.batch.account_id,
        apiKeyId: line.batch.api_key_id,
        model: line.request.model,
        prompt: line.request.prompt,
        type: line.request.type as never,
        webhookUrl: line.request.webhookUrl,
        plan: line.batch.plan as never,
        credits: line.request.credits,
        parallelLimit: line.batch.parallel_limit,
        waitMs: 0,
        cancelAfterSeconds: null,
        catalogueVersion: line.batch.catalogue_version ?? undefined,
        input: line.request.input,
        metadata: line.request.metadata,
      });
    } catch (error) {
      if (error instanceof RateLimitError) {
        // The account's queue filled meanwhile (interactive submits): the line waits for a later pass.
        await this.holds.release(line, 'batch line not admitted yet');
        await this.feed.markWaiting(line.batch.id, line.line, line.jobId);
        return;
      }
      if (!isRefusal(error)) throw error;
      // The model changed since the gateway checked the line: it fails, its hold released.
      await this.holds.release(line, 'batch line refused');
      await this.feed.markEnded(line.batch.id, line.line, line.jobId, 'failed', error.code, error.message);
      return;
    }
    await this.admitted(line);
  }

  /** The line's job exists: the line is admitted; if its batch was canceled meanwhile, the job is canceled too (refunded). */
  private async admitted(line: AdmittingLine): Promise<void> {
    const status = await this.feed.markAdmitted(line.batch.id, line.line, line.jobId);
    if (status === 'canceling') await this.ending.cancelJobs(line.batch.account_id, [line.jobId]);
  }
}

/** Runs `work` over the items, at most `limit` at a time. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A refusal by its nature (4xx: no credits, a cap, a restricted account, a model refused), not a failure to ask. */
function isRefusal(error: unknown): error is DomainError {
  if (!(error instanceof DomainError)) return false;
  const status: number = ERROR_STATUS[error.code];
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}
