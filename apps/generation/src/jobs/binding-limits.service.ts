import { Inject, Injectable, Logger } from '@nestjs/common';
import type { UpstreamPhases } from '../ports/engine';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { UpstreamMetrics } from '../metrics/upstream-metrics';
import { ParkedJobsRepository } from './parked-jobs.repository';

/** How long a binding found full is left out of claims here before its slots are asked again (a slot freed on another replica). */
const FULL_FOR_MS = 250;
/** A `429` without `Retry-After` slows its binding down this long. */
const DEFAULT_BACKOFF_MS = 2_000;
/** Permits taken from the binding's shared window at a time, at most (fewer round trips; never more than the rate). */
const PERMIT_CHUNK = 10;

type Limits = Pick<UpstreamPhases, 'maxInFlight' | 'maxRequestsPerSecond'>;

/**
 * Per-binding caps held across replicas (docs/design/jobs.md, "Binding limits"): `maxInFlight` as slots in
 * PostgreSQL tied to the job (an upstream job keeps running when a replica dies, so it keeps
 * counting), `maxRequestsPerSecond` as permits of a shared one-second window, and a shared backoff
 * after a provider's `429`. A binding is a provider account (`UpstreamPhases.binding`): every model
 * bound to the same account shares its slots, permits and backoff. What this process
 * remembers (bindings full or backing off, permits taken ahead) is only a cache of those rows.
 */
@Injectable()
export class BindingLimits {
  private readonly logger = new Logger(BindingLimits.name);
  /** Bindings whose slots were all taken when last asked, until when they are left out of claims. */
  private readonly full = new Map<string, number>();
  /** Bindings backing off after a `429`, until when (epoch ms). */
  private readonly backoff = new Map<string, number>();
  /** Permits taken from a binding's window and not used yet, with the window's end. */
  private readonly permits = new Map<string, { left: number; until: number }>();
  /** When each job was first refused a slot here (the slot-wait histogram). */
  private readonly refusedSince = new Map<string, number>();

  constructor(
    private readonly repository: ParkedJobsRepository,
    private readonly metrics: UpstreamMetrics,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  /** Bindings full or backing off: claims leave the queued jobs of their models queued. */
  blockedBindings(): string[] {
    const now = Date.now();
    const blocked: string[] = [];
    for (const [binding, until] of this.full) {
      if (until > now) blocked.push(binding);
      else this.full.delete(binding);
    }
    for (const binding of this.backingOff()) if (!blocked.includes(binding)) blocked.push(binding);
    return blocked;
  }

  /** Bindings backing off now (their parked jobs are not checked until it ends). */
  backingOff(): string[] {
    const now = Date.now();
    const bindings: string[] = [];
    for (const [binding, until] of this.backoff) {
      if (until > now) bindings.push(binding);
      else this.backoff.delete(binding);
    }
    return bindings;
  }

  /**
   * A slot for the job's upstream job, where the binding caps them; false when every slot is taken
   * (the job goes back to the queue, and the binding is left out of claims for a moment).
   */
  async acquire(binding: string, jobId: string, limits: Limits): Promise<boolean> {
    if (limits.maxInFlight === null) return true;
    const acquired = await this.repository.acquireSlot(binding, jobId, limits.maxInFlight);
    const now = Date.now();
    if (!acquired) {
      this.full.set(binding, now + FULL_FOR_MS);
      if (!this.refusedSince.has(jobId) && this.refusedSince.size < 100_000) this.refusedSince.set(jobId, now);
      return false;
    }
    const since = this.refusedSince.get(jobId);
    this.refusedSince.delete(jobId);
    this.metrics.slotWait(binding, since === undefined ? 0 : (now - since) / 1000);
    return true;
  }

  /** The job's upstream job ended (or was never made): its slot is free for the next. */
  async release(binding: string, jobId: string, limits: Limits): Promise<void> {
    if (limits.maxInFlight === null) return;
    try {
      await this.repository.releaseSlots([jobId]);
    } catch (error) {
      // Harmless: a slot of a job that is no longer processing is not counted, and is swept.
      this.logger.warn({ err: error, jobId }, 'Could not release a binding slot');
    }
    this.full.delete(binding);
  }

  /**
   * One call's permit for the binding: false while it backs off after a `429`, or when its rate's
   * window is used up (then the caller tries again later). Unlimited bindings ask no database.
   */
  async permit(binding: string, limits: Limits): Promise<boolean> {
    const now = Date.now();
    if ((this.backoff.get(binding) ?? 0) > now) return false;
    const rate = limits.maxRequestsPerSecond;
    if (rate === null) return true;
    const held = this.permits.get(binding);
    if (held && held.until > now && held.left > 0) {
      held.left--;
      return true;
    }
    const { granted, backoffUntil } = await this.repository.takePermits(binding, rate, Math.max(1, Math.min(PERMIT_CHUNK, Math.floor(rate / 10))));
    if (backoffUntil) this.backoff.set(binding, backoffUntil.getTime());
    if (granted <= 0) return false;
    // Unused permits lapse with the window they came from (at most a second).
    this.permits.set(binding, { left: granted - 1, until: now + 1_000 });
    return true;
  }

  /** The provider answered `429`: the binding backs off on every replica, for `Retry-After` or a default. */
  throttled(binding: string, retryAfterMs: number | null): void {
    const ms = Math.min(Math.max(retryAfterMs ?? DEFAULT_BACKOFF_MS, 100), this.settings.engineTimeoutMs);
    const until = Date.now() + ms;
    if ((this.backoff.get(binding) ?? 0) >= until) return;
    this.backoff.set(binding, until);
    this.metrics.throttled(binding);
    this.repository.backOff(binding, ms).catch((error: unknown) => this.logger.warn({ err: error, binding }, 'Could not share a binding backoff'));
  }

  /** Takes in the backoffs other replicas wrote (the scheduler calls it now and then). */
  async refresh(): Promise<void> {
    for (const [binding, until] of await this.repository.backingOff()) {
      if ((this.backoff.get(binding) ?? 0) < until.getTime()) this.backoff.set(binding, until.getTime());
    }
  }
}
