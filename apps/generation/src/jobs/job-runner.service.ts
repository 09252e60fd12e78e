import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { CatalogueService } from '../catalogue/catalogue.service';
import { EngineError, EngineOutput } from '../engines/engine';
import { GENERATION_SETTINGS, GenerationSettings } from '../generation.tokens';
import { OutboxRelayService } from '../outbox/outbox-relay.service';
import { OutputStorage } from '../storage/output-storage';
import { finishedEvent } from './job-events';
import type { JobEntity } from './job.entity';
import { JobOutcome, JobsRepository } from './jobs.repository';
import { JobMetrics } from '../metrics/job-metrics';

/** Abort reason of a job whose lease this worker no longer holds. */
const LEASE_LOST = new Error('lease lost');
const GENERIC_FAILURE = 'The generation failed. Your credits were refunded; please try again.';
/** Emitted on `finished` once shutdown has finished or handed back every job of this process. */
const DRAINED = Symbol('drained');

/**
 * Claims queued jobs (respecting each account's parallel slots), runs their engines under a lease
 * kept alive by heartbeats, stores the output and finishes the job with its event. Work is found
 * both by a local nudge (submit, a slot freed) and by polling (other replicas, restarts).
 */
@Injectable()
export class JobRunnerService implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(JobRunnerService.name);
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly finished = new EventEmitter();
  private pollTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private pumping?: Promise<void>;
  private pumpAgain = false;
  private stopping = false;
  private drained = false;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly catalogue: CatalogueService,
    private readonly storage: OutputStorage,
    private readonly relay: OutboxRelayService,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
    private readonly metrics: JobMetrics,
  ) {
    this.finished.setMaxListeners(0);
  }

  onApplicationBootstrap(): void {
    this.pollTimer = setInterval(() => {
      this.nudge();
      void this.reclaimExpired();
    }, this.settings.pollIntervalMs);
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), Math.max(100, Math.floor(this.settings.leaseMs / 3)));
    this.pollTimer.unref();
    this.heartbeatTimer.unref();
    this.nudge();
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
    clearInterval(this.pollTimer);
    await this.pumping;
    const all = () => Promise.allSettled([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.drainTimeoutMs())));
    if ((await Promise.race([all().then(() => 'done' as const), bound])) === 'timeout') {
      this.logger.warn({ jobs: [...this.running.keys()] }, 'Jobs still running at the drain deadline; handing them back');
      for (const run of this.running.values()) run.abort.abort();
      await all();
    }
    clearTimeout(timer);
    this.drained = true;
    this.finished.emit(DRAINED);
    await this.relay.drain().catch((error: unknown) => this.logger.warn({ err: error }, 'Final outbox flush failed; another replica publishes it'));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
    clearInterval(this.heartbeatTimer);
  }

  private drainTimeoutMs(): number {
    return this.settings.drainTimeoutMs ?? 20_000;
  }

  /** Resolves with true when the job finished (anywhere) within `ms`. */
  waitForFinish(jobId: string, ms: number): Promise<boolean> {
    const isFinal = async () => {
      const job = await this.jobs.findById(jobId);
      return job !== null && (job.status === 'completed' || job.status === 'failed');
    };
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const finish = (value: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearInterval(poll);
        this.finished.off(jobId, onLocal);
        this.finished.off(DRAINED, onDrained);
        resolve(value);
      };
      // Listen before looking, so a run of this process that ends in between is not missed.
      const onLocal = () => finish(true);
      // Shutting down: answer with the job as it stands (another replica runs it if it is not done).
      const onDrained = () => {
        isFinal().then(finish, () => finish(false));
      };
      this.finished.on(jobId, onLocal);
      this.finished.once(DRAINED, onDrained);
      if (this.drained) onDrained();
      const deadline = setTimeout(() => finish(false), ms);
      const check = () => void isFinal().then((final) => final && finish(true), () => undefined);
      // Another replica may run it (or it was already final): look at the row now and then.
      const poll = setInterval(check, 250);
      check();
    });
  }

  /** Looks for claimable work now (coalesces concurrent calls). */
  nudge(): void {
    if (this.stopping) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump()
      .catch((error: unknown) => this.logger.error({ err: error }, 'Claiming jobs failed'))
      .finally(() => {
        this.pumping = undefined;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.nudge();
        }
      });
  }

  /**
   * Claims while this process has capacity. Each round visits the accounts with queued work, oldest
   * waiting first, and gives each an equal share of the free capacity (at least one job), so one
   * account's backlog cannot starve the others; several jobs of one account come in one claim.
   */
  private async pump(): Promise<void> {
    // Another round only while some account gave all it was asked for (it may have more).
    let more = true;
    while (more && !this.stopping && this.running.size < this.settings.workerConcurrency) {
      more = false;
      const accounts = await this.jobs.accountsWithQueuedJobs(100);
      const share = Math.max(1, Math.floor((this.settings.workerConcurrency - this.running.size) / Math.max(1, accounts.length)));
      for (const accountId of accounts) {
        const capacity = this.settings.workerConcurrency - this.running.size;
        if (this.stopping || capacity <= 0) return;
        const asked = Math.min(share, capacity);
        const jobs = await this.jobs.claim(accountId, this.settings.workerId, this.settings.leaseMs, asked);
        for (const job of jobs) this.start(job);
        if (jobs.length === asked) more = true;
      }
    }
  }

  private start(job: JobEntity): void {
    this.metrics.claimed(job);
    // A run of ours for the same job is stale: its lease expired under it (heartbeats failed) and
    // the job was requeued and claimed again. The new claim owns the job now.
    this.running.get(job.id)?.abort.abort(LEASE_LOST);
    const run = { abort: new AbortController(), done: Promise.resolve() };
    run.done = this.execute(job, run.abort.signal).finally(() => {
      if (this.running.get(job.id) === run) this.running.delete(job.id);
      this.nudge();
    });
    this.running.set(job.id, run);
  }

  private async execute(job: JobEntity, signal: AbortSignal): Promise<void> {
    let outcome: JobOutcome;
    try {
      const output = await this.runEngine(job, signal);
      const outputKey = await this.storage.put(output.data, output.extension, output.contentType);
      outcome = { status: 'completed', outputKey, contentType: output.contentType };
    } catch (error) {
      // Lease lost: another worker has the job now, it is not ours to finish.
      if ((signal.aborted && signal.reason === LEASE_LOST) || error === LEASE_LOST) return;
      if (this.stopping && signal.aborted) {
        // Shutting down: the job goes back to the queue now, for another replica (or our restart).
        if (await this.jobs.handBack(job.id, this.settings.workerId)) this.metrics.handedBack(job);
        return;
      }
      outcome = { status: 'failed', error: error instanceof EngineError ? error.userMessage : GENERIC_FAILURE };
      if (!(error instanceof EngineError)) this.logger.error({ err: error, jobId: job.id }, 'Engine crashed');
    }
    const finished = await this.jobs.finish(job.id, this.settings.workerId, outcome, (j) =>
      finishedEvent(j, this.settings.cdnBaseUrl),
    );
    if (finished) {
      this.metrics.finished(finished);
      this.relay.kick();
      this.finished.emit(job.id);
    } else if (outcome.status === 'completed') {
      // We lost the job while storing its output: nothing will ever point at this file.
      await this.storage.delete(outcome.outputKey).catch((error: unknown) =>
        this.logger.warn({ err: error, jobId: job.id }, 'Could not remove the output of a job we no longer own'),
      );
    }
  }

  private async runEngine(job: JobEntity, signal: AbortSignal): Promise<EngineOutput> {
    // The model as the catalogue stands now: a disabled model's accepted jobs still run (docs/engines.md).
    const model = this.catalogue.find(job.modelId);
    if (!model) throw new EngineError('This model is no longer available. Your credits were refunded.');
    const { engine, unavailable } = this.catalogue.engineFor(model);
    if (!engine) throw new EngineError(`${unavailable} Your credits were refunded.`);
    const timeout = AbortSignal.timeout(this.settings.engineTimeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    const latency = Number(model.params.latencyMs ?? 0) * this.settings.latencyScale;
    try {
      return await engine.generate({
        jobId: job.id,
        modelId: model.id,
        type: model.type,
        prompt: job.prompt,
        seed: job.seq,
        params: { ...model.params, latencyMs: latency },
        signal: combined,
        upstreamRef: job.upstreamRef,
        saveUpstreamRef: async (ref) => {
          if (await this.jobs.saveUpstreamRef(job.id, this.settings.workerId, ref)) return;
          throw LEASE_LOST; // another worker has the job: it must not be told about (or pay for) this one
        },
      });
    } catch (error) {
      if (timeout.aborted) throw new EngineError('The generation took too long and was stopped. Your credits were refunded.');
      throw error;
    }
  }

  private async heartbeat(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    try {
      const owned = new Set(await this.jobs.heartbeat(this.settings.workerId, ids, this.settings.leaseMs));
      for (const id of ids) {
        if (!owned.has(id)) this.running.get(id)?.abort.abort(LEASE_LOST); // someone else has it now
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'Heartbeat failed');
    }
  }

  /** Jobs of workers that died: requeued, or failed with a refund once attempts are used up. */
  private async reclaimExpired(): Promise<void> {
    if (this.stopping) return;
    try {
      for (const { id, attempts } of await this.jobs.expiredLeases(50)) {
        if (attempts >= this.settings.maxAttempts) {
          const failed = await this.jobs.finish(
            id,
            null,
            { status: 'failed', error: 'The generation could not be completed. Your credits were refunded.' },
            (j) => finishedEvent(j, this.settings.cdnBaseUrl),
          );
          if (failed) {
            this.metrics.finished(failed);
            this.relay.kick();
          }
        } else if (await this.jobs.requeueExpired(id)) {
          this.metrics.requeued();
          this.logger.warn({ jobId: id, attempts }, 'Requeued a job whose worker stopped');
          this.nudge();
        }
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'Reclaiming expired leases failed');
    }
  }
}
