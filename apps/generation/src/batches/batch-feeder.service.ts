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
import { EventLoopLoad } from './event-loop-load';

/**
 * Admits batch lines as jobs when their account has free parallel slots (docs/design/batches.md, "How
 * lines run"): every JOB_POLL_INTERVAL_MS, and at once when a batch is sealed or a batch job of an
 * account with a running batch finishes here. Each pass: lines left `admitting` by a crash are taken
 * again, windows that ended expire their waiting lines, each account with a running batch gets its
 * free slots' worth of lines, at most BATCH_ADMIT_PER_PASS (held in billing, then admitted as the
 * submit admits a job), and batches whose every line has an outcome end.
 */
@Injectable()
export class BatchFeeder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(BatchFeeder.name);
  private readonly task: PeriodicTask;
  /** Accounts that had a running batch at the last pass: a job of theirs finishing here nudges the feeder. */
  private feeding = new Set<string>();
  private lastSweep = 0;
  private lastHousekeeping = 0;
  /** The pass a finish asked for, a moment later: the finishes of a burst share one pass. */
  private finishNudge?: NodeJS.Timeout;

  constructor(
    private readonly feed: BatchFeedRepository,
    private readonly jobs: JobsService,
    private readonly holds: BatchHolds,
    private readonly ending: BatchEnding,
    private readonly load: EventLoopLoad,
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
      if (this.feeding.has(job.accountId)) this.nudgeSoon();
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearTimeout(this.finishNudge);
    await this.task.stop();
  }

  /** Looks now (or right after the pass under way). */
  nudge(): void {
    this.task.trigger();
  }

  /**
   * A pass in BATCH_FEEDER_TIMINGS.finishCoalesceMs: a pass per finish, back to back, cost more
   * than the lines it admitted (each pass a transaction with two locks and its counts).
   */
  private nudgeSoon(): void {
    if (this.finishNudge) return;
    this.finishNudge = setTimeout(() => {
      this.finishNudge = undefined;
      this.nudge();
    }, BATCH_FEEDER_TIMINGS.finishCoalesceMs);
    this.finishNudge.unref();
  }

  /** Deletes the batches never sealed within ten minutes (their gateway died while sending them); nothing was held for them. */
  async sweepUnsealed(): Promise<number> {
    this.lastSweep = Date.now();
    return this.feed.deleteUnsealed(BATCH_FEEDER_TIMINGS.unsealedMaxAgeMs);
  }

  private async pass(): Promise<void> {
    if (Date.now() - this.lastSweep >= BATCH_FEEDER_TIMINGS.unsealedSweepMs) await this.sweepUnsealed();
    // Stale lines and ended windows are looked for at most once a second, not in every pass: a line is
    // stale after 10 s, a window lasts hours, and a pass comes up to ten times a second while a batch runs.
    const housekeeping = Date.now() - this.lastHousekeeping >= BATCH_FEEDER_TIMINGS.housekeepingMs;
    if (housekeeping) this.lastHousekeeping = Date.now();
    const stale = housekeeping ? await this.feed.takeStale(BATCH_FEEDER_TIMINGS.staleAdmittingMs, BATCH_FEEDER_TIMINGS.staleBatch) : [];
    if (stale.length > 0) {
      const admitted = stale.filter((line) => line.jobExists);
      for (const line of stale.filter((l) => !l.jobExists)) {
        if (await this.attempt(line, () => this.admit(line))) admitted.push(line);
      }
      await this.markAdmitted(admitted);
    }
    const accounts = await this.feed.runningAccounts();
    this.feeding = new Set(accounts);
    // No batch running (the usual case): one cheap statement a pass (two once a second), nothing more.
    if (accounts.length === 0) return;
    await this.feed.settleLines();
    if (housekeeping) await this.feed.expireLines();
    // Lower priority than interactive work in CPU too: while this process is busier than the
    // threshold, no line is admitted (those in flight go on, and their finishes free the time).
    const feedable = this.yieldsToInteractive() ? [] : accounts;
    for (const accountId of feedable) {
      const maxLines = this.settings.batchAdmitPerPass;
      const lines = await this.feed.takeLines(accountId, { maxInFlight: this.settings.batchMaxInFlight, keepFreePercent: this.settings.batchKeepFreePercent, maxLines });
      // Paced: slots that freed together are refilled over several passes, not in one wave of jobs
      // that would then run and finish together; the next pass comes shortly while slots are left.
      if (lines.length === maxLines) this.nudgeSoon();
      // Side by side, as concurrent submits: billing batches their holds and the admission writer
      // group-commits their jobs (one after another, a 20,000-line batch would wait on round trips).
      const admitted: AdmittingLine[] = [];
      await inParallel(lines, BATCH_FEEDER_TIMINGS.admissionsAtOnce, async (line) => {
        if (await this.attempt(line, () => this.admit(line))) admitted.push(line);
      });
      await this.markAdmitted(admitted);
    }
    await this.ending.endAll();
  }

  /** This process's event loop is busier than BATCH_YIELD_BUSY_PERCENT: batches wait. */
  private yieldsToInteractive(): boolean {
    const yields = this.settings.batchYieldBusyPercent < 100 && this.load.busyPercent() >= this.settings.batchYieldBusyPercent;
    if (yields) this.load.yieldedPass();
    return yields;
  }

  /** A line whose admission failed to ask (billing or the database unavailable) stays `admitting`: taken again once stale. */
  private async attempt(line: AdmittingLine, admit: () => Promise<boolean>): Promise<boolean> {
    try {
      return await admit();
    } catch (error) {
      this.logger.warn({ err: error, batchId: line.batch.id, line: line.line }, 'Admitting a batch line failed; it is taken again later');
      return false;
    }
  }

  /**
   * Holds the line's credits, then admits its job: true once its job exists (the caller marks it
   * admitted); a refusal ends the line with nothing charged.
   */
  private async admit(line: AdmittingLine): Promise<boolean> {
    if (line.batch.status === 'canceling' || line.batch.canceled_at) {
      // A crash may have left it held: released first, so that a failed release leaves the line to be taken again.
      await this.holds.release(line, 'batch canceled');
      await this.feed.markEnded(line.batch.id, line.line, line.jobId, 'canceled', 'canceled', 'The batch was canceled before this line ran.');
      return false;
    }
    try {
      await this.holds.reserve(line);
    } catch (error) {
      if (!isRefusal(error)) throw error; // left `admitting`: taken again once stale
      await this.feed.markEnded(line.batch.id, line.line, line.jobId, 'failed', error.code, error.message);
      return false;
    }
    try {
      await this.jobs.admit({
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
      }, 'background');
    } catch (error) {
      if (error instanceof RateLimitError) {
        // The account's queue filled meanwhile (interactive submits): the line waits for a later pass.
        await this.holds.release(line, 'batch line not admitted yet');
        await this.feed.markWaiting(line.batch.id, line.line, line.jobId);
        return false;
      }
      if (!isRefusal(error)) throw error;
      // The model changed since the gateway checked the line: it fails, its hold released.
      await this.holds.release(line, 'batch line refused');
      await this.feed.markEnded(line.batch.id, line.line, line.jobId, 'failed', error.code, error.message);
      return false;
    }
    return true;
  }

  /**
   * These lines' jobs exist: the lines are admitted (one statement for the pass's lines); the jobs
   * of a batch canceled meanwhile are canceled too (refunded). A failure leaves them `admitting`:
   * taken again once stale, their jobs found.
   */
  private async markAdmitted(lines: readonly AdmittingLine[]): Promise<void> {
    if (lines.length === 0) return;
    try {
      const canceling = await this.feed.markAdmitted(lines);
      for (const line of lines.filter((l) => canceling.has(l.jobId))) await this.ending.cancelJobs(line.batch.account_id, [line.jobId]);
    } catch (error) {
      this.logger.warn({ err: error, lines: lines.length }, 'Marking batch lines admitted failed; they are taken again later');
    }
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
