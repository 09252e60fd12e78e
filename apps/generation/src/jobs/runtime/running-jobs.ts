import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import type { ModelDefinition } from '../../catalogue/catalogue';
import { CatalogueService } from '../../catalogue/catalogue.service';
import type { Engine } from '../../ports/engine';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import type { JobEntity } from '../job.entity';

/** Abort reason of a job whose lease this worker no longer holds. */
export const LEASE_LOST = new Error('lease lost');
/** Abort reason of a job that was canceled (by its owner or a deadline) or failed by an operator while it ran. */
export const CANCELED = new Error('canceled');

/** Which of the process's bounded pools a run takes: CPU workers (built-in engines) or provider calls. */
export type Pool = 'cpu' | 'io';

/** One job running in this process. */
export interface Run {
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

/**
 * The runs of this process and the two pools they hold (docs/design/jobs.md, "Waiting upstream"): built-in
 * engines take one of WORKER_CONCURRENCY CPU workers for their run; provider jobs take one of
 * PROVIDER_CONCURRENCY provider slots only while they submit, check once, or collect their output.
 * Workers promised to admissions under way (`reserve`) count as taken.
 */
@Injectable()
export class RunningJobs {
  private readonly runs = new Map<string, Run>();
  private readonly active: Record<Pool, number> = { cpu: 0, io: 0 };
  private reserved = 0;
  private closed = false;
  private readonly freed = new EventEmitter();

  constructor(
    private readonly catalogue: CatalogueService,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {
    this.freed.setMaxListeners(0);
  }

  get(jobId: string): Run | undefined {
    return this.runs.get(jobId);
  }

  has(jobId: string): boolean {
    return this.runs.has(jobId);
  }

  ids(): string[] {
    return [...this.runs.keys()];
  }

  all(): Run[] {
    return [...this.runs.values()];
  }

  /** Aborts this process's run of a job, if there is one. */
  abort(jobId: string, reason?: unknown): void {
    this.runs.get(jobId)?.abort.abort(reason);
  }

  /** A run starts: it holds a slot of its pool (and replaces a stale run of the same job). */
  add(run: Run): void {
    this.active[run.pool]++;
    this.runs.set(run.job.id, run);
  }

  /** A run ended: its slot is free again (listeners of `onFreed` are told). */
  remove(run: Run): void {
    this.active[run.pool]--;
    if (this.runs.get(run.job.id) === run) this.runs.delete(run.job.id);
    this.freed.emit('freed', run.pool);
  }

  /** Calls `listener` each time a run gives back a slot of a pool. */
  onFreed(listener: (pool: Pool) => void): void {
    this.freed.on('freed', listener);
  }

  /** Shutdown began: no more offers, claims or checks. */
  close(): void {
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Slots of a pool not held by a run nor promised to an admission. */
  free(pool: Pool): number {
    const size = pool === 'cpu' ? this.settings.workerConcurrency : this.settings.providerConcurrency;
    return size - this.active[pool] - this.reserved;
  }

  /** Provider slots free for checks (the poll scheduler claims no more due jobs than this). */
  freeForChecks(): number {
    return this.closed ? 0 : this.settings.providerConcurrency - this.active.io;
  }

  /** Promises a worker to an admission (until `unreserve`); false when full or closed. */
  reserve(): boolean {
    // The admission may claim a job of either pool (its account's head): room in both is asked for.
    if (this.closed || this.free('cpu') <= 0 || this.free('io') <= 0) return false;
    this.reserved++;
    return true;
  }

  unreserve(): void {
    this.reserved--;
  }

  poolOfModel(model: ModelDefinition): Pool {
    if (!this.settings.providerParking) return 'cpu';
    return this.catalogue.engineFor(model).engine?.waitsUpstream ? 'io' : 'cpu';
  }

  poolOf(job: JobEntity): Pool {
    const model = this.catalogue.find(job.modelId);
    return model ? this.poolOfModel(model) : 'cpu';
  }
}
