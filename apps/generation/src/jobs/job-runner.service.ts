import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { Broadcasts, GenerationChangedBroadcast } from '@gen/contracts';
import { Broadcaster } from '@gen/transport';
import { CatalogueService } from '../catalogue/catalogue.service';
import type { ModelDefinition } from '../catalogue/catalogue';
import { Engine, EngineError, EngineOutput, EngineRequest, UpstreamCheck, UpstreamNotNow, UpstreamPending, UpstreamPhases } from '../engines/engine';
import { DEFAULT_RETENTION_SECONDS, GENERATION_SETTINGS, GenerationSettings } from '../generation.tokens';
import { OutboxRelayService } from '../outbox/outbox-relay.service';
import type { OutboxMessage } from '../outbox/outbox.repository';
import { OutputStorage } from '@gen/storage';
import { finishedEvent } from './job-events';
import { JobFinisher } from './job-finisher.service';
import { toGenerationRecord } from './job-record';
import type { JobEntity, JobOutput } from './job.entity';
import { ClaimOffer, FinishedJob, JobOutcome, JobsRepository } from './jobs.repository';
import { JobMetrics } from '../metrics/job-metrics';
import { UpstreamMetrics } from '../metrics/upstream-metrics';
import { ProviderCallbacks } from '../callbacks/provider-callbacks.service';
import { BindingLimits } from './binding-limits.service';
import { ParkedJobsRepository } from './parked-jobs.repository';
import { CoalescedTask } from './coalesced-task';
import { modelsOnBindings } from './binding-models';
import { pending } from './upstream-pending';

/** Abort reason of a job whose lease this worker no longer holds. */
const LEASE_LOST = new Error('lease lost');
/** Abort reason of a job that was canceled (by its owner or a deadline) or failed by an operator while it ran. */
const CANCELED = new Error('canceled');
/** How often the progress engines report is saved and broadcast. */
const PROGRESS_FLUSH_MS = 1_000;

/** A run's result when the job was parked (waiting upstream with no worker) or went back to the queue. */
const PARKED = Symbol('parked');
/** A check that could not be made now: the job is checked again after this backoff (at least). */
const NOT_NOW_BACKOFF_MS = 500;

/** Which of the process's bounded pools a run takes: CPU workers (built-in engines) or provider calls. */
type Pool = 'cpu' | 'io';

/** One job running in this process. */
interface Run {
  job: JobEntity;
  /** How it came here: claimed from the queue, or taken for a status check while parked. */
  kind: 'claim' | 'check';
  pool: Pool;
  abort: AbortController;
  done: Promise<void>;
  engine?: Engine;
  /** The upstream job this run attached to or submitted, if any (for a cancel). */
  upstreamRef: string | null;
  /** The last progress reported and not yet saved. */
  progress?: number;
}
const GENERIC_FAILURE = 'The generation failed. Your credits were refunded; please try again.';
/** Emitted on `finished` once shutdown has finished or handed back every job of this process. */
const DRAINED = Symbol('drained');
/** Emitted on `finished` when a run gives back a provider slot. */
const IO_FREED = Symbol('io-freed');

/**
 * Claims queued jobs (respecting each account's parallel slots), runs their engines under a lease
 * kept alive by heartbeats, stores the output and finishes the job with its event. Work is found
 * both by a local nudge (submit, a slot freed) and by polling (other replicas, restarts).
 *
 * Two pools bound what runs (docs/design/jobs.md, "Waiting upstream"): built-in engines take one of
 * WORKER_CONCURRENCY CPU workers for their run; provider jobs take one of PROVIDER_CONCURRENCY
 * provider slots only while they submit, check once, or collect their output, and in between are
 * parked in the database (the poll scheduler, `ParkedJobs`, hands them back here when due).
 */
@Injectable()
export class JobRunnerService implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(JobRunnerService.name);
  private readonly running = new Map<string, Run>();
  /** Workers promised to admissions under way (`offer`), not yet running anything. */
  private reserved = 0;
  /** Runs holding each pool now. */
  private readonly active: Record<Pool, number> = { cpu: 0, io: 0 };
  private readonly finished = new EventEmitter();
  private pollTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private progressTimer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private readonly pumps = new CoalescedTask(
    () => this.pump(),
    (error: unknown) => this.logger.error({ err: error }, 'Claiming jobs failed'),
    () => this.nudge(),
  );
  private stopping = false;
  private drained = false;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly catalogue: CatalogueService,
    private readonly storage: OutputStorage,
    private readonly relay: OutboxRelayService,
    private readonly finisher: JobFinisher,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
    private readonly metrics: JobMetrics,
    private readonly broadcaster: Broadcaster,
    private readonly parked: ParkedJobsRepository,
    private readonly limits: BindingLimits,
    private readonly upstreamMetrics: UpstreamMetrics,
    private readonly callbacks: ProviderCallbacks,
  ) {
    this.finished.setMaxListeners(0);
  }

  onApplicationBootstrap(): void {
    this.pollTimer = setInterval(() => {
      this.nudge();
      void this.reclaimExpired();
    }, this.settings.pollIntervalMs);
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), Math.max(100, Math.floor(this.settings.leaseMs / 3)));
    this.progressTimer = setInterval(() => void this.flushProgress(), PROGRESS_FLUSH_MS);
    this.pollTimer.unref();
    this.heartbeatTimer.unref();
    this.progressTimer.unref();
    // A job of ours that became final elsewhere (canceled through another replica, failed by an
    // operator) stops at once; the heartbeat finds the same thing later if this message is missed.
    this.unsubscribe = this.broadcaster.subscribe(Broadcasts.generationChanged, (payload) => {
      const { record } = payload as GenerationChangedBroadcast;
      if (record.status === 'completed' || record.status === 'failed') this.stop(record.id);
    });
    this.nudge();
  }

  /** A job finished outside a run (a cancel), its event leased to this process: counted, its event sent now, synchronous waiters answered. */
  finishedElsewhere(job: JobEntity, event: OutboxMessage): void {
    this.metrics.finished(job);
    this.relay.publish([event]);
    this.finished.emit(job.id, job);
  }

  /**
   * A claim for a submit's admission (JobsRepository.admit) when this process has a free worker, so
   * that a job that can start at once costs no separate claim; undefined when full or stopping. The
   * worker stays promised until `accept`.
   */
  offer(): ClaimOffer | undefined {
    // The admission may claim a job of either pool (its account's head): room in both is asked for.
    if (this.stopping || this.free('cpu') <= 0 || this.free('io') <= 0) return undefined;
    this.reserved++;
    return { owner: this.settings.workerId, leaseMs: this.settings.leaseMs, max: 1 };
  }

  /** Runs the jobs an admission claimed with `offer` (none if it claimed none, or failed), and frees the promise. */
  accept(offer: ClaimOffer | undefined, claimed: readonly JobEntity[]): void {
    if (offer) this.reserved--;
    if (this.stopping && claimed.length > 0) {
      // Shutdown began during the admission: back to the queue at once, for another replica.
      void this.jobs.release(this.settings.workerId, claimed.map((job) => job.id)).catch((error: unknown) =>
        this.logger.warn({ err: error }, 'Could not hand back jobs claimed during shutdown; their leases will expire'),
      );
      return;
    }
    for (const job of claimed) this.start(job);
  }

  /** Stops this process's run of a job that was finished by someone else (a cancel); no-op if not running here. */
  stop(jobId: string): void {
    this.running.get(jobId)?.abort.abort(CANCELED);
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
    this.unsubscribe?.();
    await this.pumps.current();
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
    await this.finisher.drain();
    await this.relay.drain().catch((error: unknown) => this.logger.warn({ err: error }, 'Final outbox flush failed; another replica publishes it'));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
    clearInterval(this.heartbeatTimer);
    clearInterval(this.progressTimer);
  }

  private drainTimeoutMs(): number {
    return this.settings.drainTimeoutMs ?? 20_000;
  }

  /** Resolves with the job once it is final (finished anywhere) within `ms`; null if it is not by then. */
  waitForFinish(jobId: string, ms: number): Promise<JobEntity | null> {
    const finalJob = async () => {
      const job = await this.jobs.findById(jobId);
      return job !== null && (job.status === 'completed' || job.status === 'failed') ? job : null;
    };
    return new Promise<JobEntity | null>((resolve) => {
      let settled = false;
      const finish = (job: JobEntity | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearInterval(poll);
        this.finished.off(jobId, onLocal);
        this.finished.off(DRAINED, onDrained);
        resolve(job);
      };
      // Listen before looking, so a run of this process that ends in between is not missed.
      const onLocal = (job: JobEntity) => finish(job);
      // Shutting down: answer with the job as it stands (another replica runs it if it is not done).
      const onDrained = () => {
        finalJob().then(finish, () => finish(null));
      };
      this.finished.on(jobId, onLocal);
      this.finished.once(DRAINED, onDrained);
      if (this.drained) onDrained();
      const deadline = setTimeout(() => finish(null), ms);
      const check = () => void finalJob().then((job) => job && finish(job), () => undefined);
      // Another replica may run it (or it was already final): look at the row now and then. A run of
      // this process reports its end itself, so the row is not read at once for it.
      const poll = setInterval(check, 250);
      if (!this.running.has(jobId)) check();
    });
  }

  /** Looks for claimable work now (coalesces concurrent calls). */
  nudge(): void {
    if (this.stopping) return;
    this.pumps.run();
  }

  /** Slots of a pool not held by a run nor promised to an admission. */
  free(pool: Pool): number {
    const size = pool === 'cpu' ? this.settings.workerConcurrency : this.settings.providerConcurrency;
    return size - this.active[pool] - this.reserved;
  }

  /**
   * Claims while this process has capacity. Each round visits the accounts with queued work, oldest
   * waiting first, and gives each an equal share of the free capacity (at least one job), so one
   * account's backlog cannot starve the others; several jobs of one account come in one claim.
   * With parking on, each pool claims only the jobs of its own models (a full pool leaves its
   * models' jobs queued), and the jobs of a binding whose `maxInFlight` is reached stay queued.
   */
  private async pump(): Promise<void> {
    const passes = this.claimPasses();
    for (const pass of passes) {
      // Another round only while some account gave all it was asked for (it may have more).
      let more = true;
      while (more && !this.stopping && this.free(pass.pool) > 0) {
        more = false;
        const accounts = await this.jobs.accountsWithQueuedJobs(100);
        const share = Math.max(1, Math.floor(this.free(pass.pool) / Math.max(1, accounts.length)));
        for (const accountId of accounts) {
          const capacity = this.free(pass.pool);
          if (this.stopping || capacity <= 0) break;
          const asked = Math.min(share, capacity);
          const jobs = await this.jobs.claim(accountId, this.settings.workerId, this.settings.leaseMs, asked, pass.skip);
          for (const job of jobs) this.start(job);
          if (jobs.length === asked) more = true;
        }
      }
    }
  }

  /** The claims a pump makes: one per pool with room, each leaving out the other pool's models and blocked bindings. */
  private claimPasses(): Array<{ pool: Pool; skip: string[] }> {
    if (!this.settings.providerParking) return [{ pool: 'cpu', skip: [] }];
    const byPool: Record<Pool, string[]> = { cpu: [], io: [] };
    for (const info of this.catalogue.list()) {
      const model = this.catalogue.find(info.id);
      if (model) byPool[this.poolOfModel(model)].push(model.id);
    }
    const blocked = modelsOnBindings(this.catalogue, this.limits.blockedBindings());
    const passes: Array<{ pool: Pool; skip: string[] }> = [];
    if (this.free('io') > 0) passes.push({ pool: 'io', skip: [...byPool.cpu, ...blocked] });
    if (this.free('cpu') > 0) passes.push({ pool: 'cpu', skip: byPool.io });
    return passes;
  }

  private poolOfModel(model: ModelDefinition): Pool {
    if (!this.settings.providerParking) return 'cpu';
    return this.catalogue.engineFor(model).engine?.waitsUpstream ? 'io' : 'cpu';
  }

  private poolOf(job: JobEntity): Pool {
    const model = this.catalogue.find(job.modelId);
    return model ? this.poolOfModel(model) : 'cpu';
  }

  /**
   * Parked jobs due for a check (claimed by the poll scheduler, leased to this process): each is
   * checked once with a provider slot, then parked again, or collected and finished, or failed.
   */
  check(jobs: readonly JobEntity[]): void {
    for (const job of jobs) this.start(job, 'check');
  }

  /** Calls `listener` when provider slots free up (the poll scheduler claims again). */
  onProviderSlotsFreed(listener: () => void): void {
    this.finished.on(IO_FREED, listener);
  }

  /** Provider slots free for checks (the poll scheduler claims no more due jobs than this). */
  freeForChecks(): number {
    return this.stopping ? 0 : this.settings.providerConcurrency - this.active.io;
  }

  private start(job: JobEntity, kind: Run['kind'] = 'claim'): void {
    if (kind === 'claim') this.metrics.claimed(job);
    // A run of ours for the same job is stale: its lease expired under it (heartbeats failed) and
    // the job was requeued and claimed again. The new claim owns the job now.
    this.running.get(job.id)?.abort.abort(LEASE_LOST);
    const pool = kind === 'check' ? 'io' : this.poolOf(job);
    const run: Run = { job, kind, pool, abort: new AbortController(), done: Promise.resolve(), upstreamRef: job.upstreamRef };
    this.active[pool]++;
    run.done = this.execute(run).finally(() => {
      this.active[pool]--;
      if (pool === 'io') this.finished.emit(IO_FREED);
      if (this.running.get(job.id) === run) this.running.delete(job.id);
      this.nudge();
    });
    this.running.set(job.id, run);
    if (kind === 'claim') this.announce(job, null);
  }

  private async execute(run: Run): Promise<void> {
    const { job } = run;
    const signal = run.abort.signal;
    let outcome: JobOutcome;
    try {
      if (job.canceledAt) throw CANCELED;
      const outputs = await this.runEngine(run);
      if (outputs === PARKED) return;
      outcome = { status: 'completed', outputs: await this.store(job.id, outputs), keepSeconds: this.settings.outputRetentionSeconds ?? DEFAULT_RETENTION_SECONDS };
    } catch (error) {
      // Lease lost: another worker has the job now, it is not ours to finish.
      if ((signal.aborted && signal.reason === LEASE_LOST) || error === LEASE_LOST) return;
      // Canceled (already final, refunded): ask the provider to stop too, where there is one.
      if ((signal.aborted && signal.reason === CANCELED) || error === CANCELED) return this.cancelUpstream(run);
      if (this.stopping && signal.aborted) {
        // Its upstream job exists: parked again, due now, for any replica's scheduler (or the lease reclaim, if this fails).
        if (run.upstreamRef !== null && this.settings.providerParking && run.engine?.phases) {
          const parked = await this.parked
            .park({ jobId: job.id, owner: this.settings.workerId, delayMs: 0, submittedTotalMs: run.engine.phases.totalTimeoutMs, checked: false, progress: null, queuePosition: null })
            .catch(() => false);
          if (parked) this.metrics.handedBack(job);
          return;
        }
        // Shutting down: the job goes back to the queue now, for another replica (or our restart).
        if (await this.jobs.handBack(job.id, this.settings.workerId)) this.metrics.handedBack(job);
        return;
      }
      outcome = { status: 'failed', error: error instanceof EngineError ? error.userMessage : GENERIC_FAILURE };
      if (!(error instanceof EngineError)) this.logger.error({ err: error, jobId: job.id }, 'Engine crashed');
    }
    let finished: FinishedJob | null;
    try {
      finished = await this.finisher.finish({ jobId: job.id, owner: this.settings.workerId, outcome, event: (j) => finishedEvent(j, this.settings.cdnBaseUrl) });
    } catch (error) {
      // Not written (the database kept failing it): the lease runs out and the job is queued again.
      this.logger.error({ err: error, jobId: job.id }, 'Could not write the final state; the job will run again');
      return;
    }
    if (finished) {
      this.metrics.finished(finished.job);
      this.relay.publish([finished.event]);
      this.finished.emit(job.id, finished.job);
    } else if (outcome.status === 'completed') {
      await this.discardOutputs(job.id, outcome.outputs);
    }
  }

  /**
   * Stores every output, in order. An engine that produced none failed (a bug of the engine, never
   * a completed job without an output). If one write fails, those already written are removed.
   */
  private async store(jobId: string, outputs: readonly EngineOutput[]): Promise<JobOutput[]> {
    if (outputs.length === 0) throw new Error('the engine returned no output');
    const stored: JobOutput[] = [];
    try {
      for (const output of outputs) {
        const key = output.stored ? output.stored.key : await this.storage.put(output.data, output.extension);
        stored.push({
          key,
          content_type: output.contentType,
          bytes: output.stored ? output.stored.bytes : output.data.length,
          ...(output.width !== undefined && { width: output.width }),
          ...(output.height !== undefined && { height: output.height }),
          ...(output.durationS !== undefined && { duration_s: output.durationS }),
        });
      }
    } catch (error) {
      // Objects the engine already streamed in, past the one that failed, go too.
      const streamed = outputs.slice(stored.length).flatMap((o) => (o.stored ? [{ key: o.stored.key, content_type: o.contentType, bytes: o.stored.bytes }] : []));
      await this.discardOutputs(jobId, [...stored, ...streamed]);
      throw error;
    }
    return stored;
  }

  /**
   * The job was not ours to finish: we lost it while storing its outputs, and nothing will ever point
   * at these files. Unless our own finish did commit and only its answer was lost (a retry found the
   * job final with these very outputs): then the files are the job's.
   */
  private async discardOutputs(jobId: string, outputs: readonly JobOutput[]): Promise<void> {
    if (outputs.length === 0) return;
    try {
      if ((await this.jobs.findById(jobId))?.outputKey === outputs[0].key) return;
      for (const output of outputs) await this.storage.delete(output.key);
    } catch (error) {
      this.logger.warn({ err: error, jobId }, 'Could not remove the outputs of a job we no longer own');
    }
  }

  /** A parked job was canceled (no run has it): its upstream job is canceled from here, best effort. */
  cancelParked(job: JobEntity): void {
    if (job.upstreamRef === null) return;
    const model = this.catalogue.find(job.modelId);
    const engine = model ? this.catalogue.engineFor(model).engine : null;
    if (!engine?.cancel) return;
    engine.cancel(job.upstreamRef).catch((error: unknown) => this.logger.warn({ err: error, jobId: job.id }, 'Canceling the upstream job failed'));
  }

  /** Best effort: a provider job of a canceled run is canceled upstream, so nobody pays for it to go on. */
  private async cancelUpstream(run: Run): Promise<void> {
    if (!run.upstreamRef || !run.engine?.cancel) return;
    try {
      await run.engine.cancel(run.upstreamRef);
    } catch (error) {
      this.logger.warn({ err: error, jobId: run.job.id }, 'Canceling the upstream job failed');
    }
  }

  private async runEngine(run: Run): Promise<EngineOutput[] | typeof PARKED> {
    const { job } = run;
    const signal = run.abort.signal;
    // The model as the catalogue stands now: a disabled model's accepted jobs still run (docs/operations/catalogue.md).
    const model = this.catalogue.find(job.modelId);
    if (!model) throw new EngineError('This model is no longer available. Your credits were refunded.');
    const { engine, unavailable } = this.catalogue.engineFor(model);
    if (!engine) throw new EngineError(`${unavailable} Your credits were refunded.`);
    run.engine = engine;
    const timeout = AbortSignal.timeout(this.settings.engineTimeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    const latency = Number(model.params.latencyMs ?? 0) * this.settings.latencyScale;
    const request: EngineRequest = {
      jobId: job.id,
      modelId: model.id,
      type: model.type,
      prompt: job.prompt,
      input: job.input,
      seed: job.seq,
      params: { ...model.params, latencyMs: latency },
      signal: combined,
      upstreamRef: job.upstreamRef,
      // Sent by adapters whose binding has "callbacks": true (docs/operations/providers.md, "Callbacks").
      callbackUrl: this.callbacks.urlFor(job.id, model.engine),
      saveUpstreamRef: async (ref) => {
        run.upstreamRef = ref;
        if (await this.jobs.saveUpstreamRef(job.id, this.settings.workerId, ref)) return;
        // Not ours any more: finished by a cancel (the caller then cancels upstream), or taken over.
        throw signal.aborted && signal.reason === CANCELED ? CANCELED : LEASE_LOST;
      },
      reportProgress: (fraction) => {
        if (Number.isFinite(fraction)) run.progress = Math.min(1, Math.max(0, fraction));
      },
      reportThrottled: (retryAfterMs) => this.limits.throttled(engine.phases?.binding ?? model.id, retryAfterMs),
    };
    try {
      const phases = this.settings.providerParking ? engine.phases : undefined;
      if (phases) return await this.runPhases(run, model, phases, request);
      return await engine.generate(request);
    } catch (error) {
      if (timeout.aborted) throw new EngineError('The generation took too long and was stopped. Your credits were refunded.');
      throw error;
    }
  }

  /**
   * A provider job in phases (docs/design/jobs.md, "Waiting upstream"): a claimed job submits (a slot of its
   * binding first, where it caps them) and is parked; a parked one due for a check reads its upstream
   * state once, and is parked again or, once it ended, collected here.
   */
  private async runPhases(run: Run, model: ModelDefinition, phases: UpstreamPhases, request: EngineRequest): Promise<EngineOutput[] | typeof PARKED> {
    const { job } = run;
    const binding = phases.binding;
    const callbackExpected = request.callbackUrl != null;
    let result: UpstreamCheck;
    if (run.kind === 'claim' && job.upstreamRef === null) {
      const slot = await this.limits.acquire(binding, job.id, phases);
      if (!slot || !(await this.limits.permit(binding, phases))) {
        // Its binding is full (or backing off): back to the queue, in its place, until a slot frees.
        if (slot) await this.limits.release(binding, job.id, phases);
        await this.handBackToQueue(run);
        return PARKED;
      }
      result = await phases.start(request);
      if (!result.ended) {
        return this.park(run, { submittedTotalMs: phases.totalTimeoutMs, checked: false, delayMs: phases.nextCheckMs(0, callbackExpected), ...pending(result) });
      }
    } else if (run.kind === 'claim') {
      // Requeued with its upstream job already made (an older version's run, or a hand-back): parked, due now.
      return this.park(run, { submittedTotalMs: phases.totalTimeoutMs, checked: false, delayMs: 0 });
    } else {
      const deadlineAt = job.upstreamDeadlineAt?.getTime();
      const checkRequest = { ...request, deadlineAt };
      if (!(await this.limits.permit(binding, phases))) return this.park(run, { submittedTotalMs: null, checked: false, delayMs: phases.nextCheckMs(0, callbackExpected) });
      try {
        result = await phases.check(checkRequest);
      } catch (error) {
        if (!(error instanceof UpstreamNotNow)) {
          this.upstreamMetrics.checked(model.id, 'failed');
          await this.limits.release(binding, job.id, phases);
          throw error;
        }
        this.upstreamMetrics.checked(model.id, 'not-now');
        const backoff = Math.max(error.retryAfterMs ?? 0, phases.nextCheckMs(job.upstreamChecks + 1, callbackExpected), NOT_NOW_BACKOFF_MS);
        return this.park(run, { submittedTotalMs: null, checked: true, delayMs: backoff });
      }
      this.upstreamMetrics.checked(model.id, result.ended ? 'ended' : 'pending');
      if (!result.ended) {
        return this.park(run, { submittedTotalMs: null, checked: true, delayMs: phases.nextCheckMs(job.upstreamChecks + 1, callbackExpected), ...pending(result) });
      }
      request.deadlineAt = deadlineAt;
    }
    this.upstreamMetrics.upstreamEnded(model.id, job.upstreamAt);
    await this.limits.release(binding, job.id, phases);
    return phases.collect({ ...request, upstreamRef: run.upstreamRef }, result);
  }

  /** Parks the job (no lease, a next check); if it is no longer ours (canceled meanwhile, taken over), stops as such. */
  private async park(
    run: Run,
    park: { submittedTotalMs: number | null; checked: boolean; delayMs: number } & UpstreamPending,
  ): Promise<typeof PARKED> {
    const signal = run.abort.signal;
    const parked = await this.parked
      .park({
        jobId: run.job.id,
        owner: this.settings.workerId,
        delayMs: park.delayMs,
        submittedTotalMs: park.submittedTotalMs,
        checked: park.checked,
        progress: park.progress ?? null,
        queuePosition: park.queuePosition ?? null,
      })
      .catch((error: unknown) => {
        // Not the job's failure: its lease runs out and the lease reclaim parks it again (`reparkExpired`).
        this.logger.warn({ err: error, jobId: run.job.id }, 'Could not park a provider job; it is parked again when its lease expires');
        throw LEASE_LOST;
      });
    if (park.progress !== undefined || park.queuePosition !== undefined || run.job.upstreamQueuePosition !== null) {
      this.announce({ ...run.job, upstreamQueuePosition: park.queuePosition ?? null }, park.progress ?? run.job.progress);
    }
    if (parked) return PARKED;
    throw signal.aborted && signal.reason === CANCELED ? CANCELED : (await this.jobs.findById(run.job.id))?.canceledAt ? CANCELED : LEASE_LOST;
  }

  /** A claimed job that cannot start now (its binding is full): queued again in its place, no attempt used. */
  private async handBackToQueue(run: Run): Promise<void> {
    await this.jobs.release(this.settings.workerId, [run.job.id]);
  }

  private async heartbeat(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    try {
      const { owned, finished } = await this.jobs.heartbeat(this.settings.workerId, ids, this.settings.leaseMs);
      const mine = new Set(owned);
      const final = new Set(finished);
      for (const id of ids) {
        if (final.has(id)) this.stop(id); // canceled or failed meanwhile
        else if (!mine.has(id)) this.running.get(id)?.abort.abort(LEASE_LOST); // someone else has it now
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'Heartbeat failed');
    }
  }

  /** Saves the progress reported since the last flush, and tells the live status streams. */
  private async flushProgress(): Promise<void> {
    const changed = new Map<string, number>();
    for (const [id, run] of this.running) {
      if (run.progress === undefined) continue;
      changed.set(id, run.progress);
      this.announce(run.job, run.progress);
      run.progress = undefined;
    }
    try {
      await this.jobs.saveProgress(this.settings.workerId, changed);
    } catch (error) {
      this.logger.warn({ err: error }, 'Saving progress failed');
    }
  }

  /** Tells the live status streams (every gateway) that a job of ours is processing, with its progress. */
  private announce(job: JobEntity, progress: number | null): void {
    const record = toGenerationRecord({ ...job, status: 'processing', progress } as JobEntity, this.settings.cdnBaseUrl);
    this.broadcaster.publish(Broadcasts.generationChanged, { accountId: job.accountId, record } satisfies GenerationChangedBroadcast);
  }

  /** Jobs of workers that died: requeued, or failed with a refund once attempts are used up. */
  private async reclaimExpired(): Promise<void> {
    if (this.stopping) return;
    try {
      for (const { id, attempts } of await this.jobs.expiredLeases(50)) {
        if (attempts >= this.settings.maxAttempts) {
          const failed = await this.finisher.finish({
            jobId: id,
            owner: null,
            outcome: { status: 'failed', error: 'The generation could not be completed. Your credits were refunded.' },
            event: (j) => finishedEvent(j, this.settings.cdnBaseUrl),
          });
          if (failed) {
            this.metrics.finished(failed.job);
            this.relay.publish([failed.event]);
          }
        } else if (this.settings.providerParking && (await this.parked.reparkExpired(id))) {
          // Its upstream job exists: checked again from the database, never submitted twice.
          this.logger.warn({ jobId: id, attempts }, 'Parked again a provider job whose worker stopped');
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
