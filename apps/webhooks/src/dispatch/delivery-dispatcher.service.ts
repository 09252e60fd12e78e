import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import type { WebhookSecretReply } from '@gen/contracts';
import { AttemptResult, ClaimedAttempt, DeliveriesRepository, ExhaustedDelivery, NewDelivery } from '../deliveries/deliveries.repository';
import { KeyWebhookSettingsService } from '../keys/key-webhook-settings.service';
import { DeliveryMetrics, DispatcherStats } from '../metrics/delivery-metrics';
import type { ResolvedWebhooksSettings } from '../webhooks.settings';
import { WEBHOOKS_SETTINGS } from '../webhooks.tokens';
import { BatchQueue } from './batch-queue';
import { MAX_ATTEMPTS, nextAttemptAt } from './retry-schedule';
import { AttemptOutcome, WebhookSender } from './webhook-sender';

/** How long to wait before trying again when an attempt could not even start (secret lookup failed). */
const NOT_STARTED_RETRY_MS = 1_000;
/** Deliveries claimed in one statement. */
const CLAIM_BATCH = 200;
/** Claim statements in flight at once. */
const MAX_CONCURRENT_CLAIMS = 2;
/** Deliveries the poll looks at in one pass. */
const POLL_LIMIT = 2_000;
/** New deliveries written in one statement, and such statements in flight at once. */
const INSERT_BATCH = 500;
const CONCURRENT_INSERTS = 2;
/**
 * How long a new delivery may wait, before it is stored, for a free attempt slot. Stored with a
 * slot, it is written already claimed for attempt 1 (one statement for the lot); stored without,
 * it takes a second statement to claim it later. Under overload, waiting here a little (the event
 * is not acknowledged yet, so nothing is lost in a crash) keeps every delivery on the cheap path;
 * past this, it is stored unclaimed so that its event can be acknowledged.
 */
const ADMISSION_WAIT_MS = 250;
/** Attempt outcomes written in one statement, and such statements in flight at once. */
const RECORD_BATCH = 500;
const CONCURRENT_RECORDS = 2;
/**
 * New deliveries that found no free slot wait here, in arrival order, for their attempt 1 (claimed
 * with `claimFresh`, from memory); beyond this many, they take the timer-and-claim path.
 */
const MAX_WAITING_NEW = 50_000;
/**
 * The share of the attempt slots that new deliveries may fill: the rest is kept for retries, so
 * that a flood of new events does not make scheduled retries late.
 */
const NEW_DELIVERY_SHARE = 0.9;

/**
 * Sends deliveries' attempts on time.
 *
 * - A new delivery is written together with its first attempt's claim (one statement for all the
 *   deliveries that arrive together, see `submit`), and attempt 1 starts as soon as that commits.
 *   When no slot is free, it waits in memory (`waitingNew`) and is claimed as slots free up.
 * - Each pending delivery this process knows about has a timer for its due time, set when an
 *   attempt fails (due 2 s or 6 s after the failure), so attempts start within milliseconds of the
 *   schedule, not at the next poll. Retries go before new deliveries, and keep a share of the slots.
 * - A poll (every `pollIntervalMs`) sets timers for what is due soon that no timer covers: deliveries
 *   of a process that restarted or died, or of another replica. It is the safety net, not the clock.
 * - A timer does not send by itself: it claims the delivery in Postgres (`FOR UPDATE SKIP LOCKED`,
 *   a lease, the attempt counted and recorded as in flight before anything is sent). Two replicas or
 *   a timer and the poll racing for a delivery make one attempt; a crash mid-attempt leaves a lease
 *   that expires, and the delivery resumes with its next attempt, at once, never a fourth.
 * - Writes are grouped: the deliveries of events handled together are inserted in one statement
 *   (`admit`), the outcomes of attempts that end together are recorded in one (BatchQueue), and the attempts
 *   that start together ask for each key's signing secret once. Under load a commit carries
 *   hundreds of deliveries instead of one, which is what lets a process keep up with its receivers.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  /** `setAt`: when the due time was learnt, so that an older poll result cannot replace it. */
  private readonly timers = new Map<string, { at: number; setAt: number; handle: NodeJS.Timeout }>();
  private readonly due = new Set<string>();
  /** New deliveries (inserted by this process, due now) waiting for a free slot for attempt 1. */
  private readonly waitingNew = new Map<string, NewDelivery>();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Claim statements in flight, and how many deliveries they hold a slot for. */
  private readonly claims = new Set<Promise<void>>();
  private claimsInFlight = 0;
  private claiming = 0;
  private pollTimer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private stopped = false;
  private shuttingDown?: Promise<void>;
  private readonly counters = { started: 0, lateOver100ms: 0, maxLatenessMs: 0 };
  /** New deliveries not stored yet, oldest first, waiting for a free slot (see ADMISSION_WAIT_MS). */
  private readonly admissions: Admission[] = [];
  private readonly insertsInFlight = new Set<Promise<void>>();
  private admissionTimer?: NodeJS.Timeout;
  private admissionScheduled = false;
  private readonly outcomes = new BatchQueue<{ claim: ClaimedAttempt; result: AttemptResult }, boolean>(
    async (batch) => {
      const recorded = await this.repository.recordAttempts(batch);
      return batch.map((x) => recorded.has(x.claim.deliveryId));
    },
    { maxBatch: RECORD_BATCH, maxConcurrent: CONCURRENT_RECORDS },
  );

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly sender: WebhookSender,
    private readonly keys: KeyWebhookSettingsService,
    @Inject(WEBHOOKS_SETTINGS) private readonly settings: ResolvedWebhooksSettings,
    @Optional() private readonly metrics?: DeliveryMetrics,
  ) {}

  onApplicationBootstrap(): void {
    this.pollTimer = setInterval(() => this.poll(), this.settings.pollIntervalMs);
    this.pollTimer.unref();
    this.poll();
  }

  /**
   * Stops taking new attempts and waits for those in flight (each ends within its 5 s timeout).
   * Calling it again waits for the same shutdown.
   */
  onApplicationShutdown(): Promise<void> {
    this.shuttingDown ??= this.shutDown();
    return this.shuttingDown;
  }

  private async shutDown(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    for (const { handle } of this.timers.values()) clearTimeout(handle);
    this.timers.clear();
    this.due.clear();
    // Still pending in the database: the next process (or another replica) sends them.
    this.waitingNew.clear();
    if (this.admissionTimer) clearTimeout(this.admissionTimer);
    // New deliveries not stored yet are stored now, unclaimed: their events can then be acknowledged.
    while (this.admissions.length > 0 || this.insertsInFlight.size > 0) {
      this.admit();
      await Promise.allSettled([...this.insertsInFlight]);
    }
    await this.polling;
    await Promise.allSettled([...this.claims]);
    await Promise.allSettled([...this.inFlight.values()]);
    await this.outcomes.idle();
    await this.sender.close();
  }

  /**
   * Stores a new delivery, due at its `firstAttemptAt` (now), and starts attempt 1 as soon as it is
   * committed. Resolves once the delivery is durable, to false if it already existed (the event was
   * seen before, or a redelivery of the job is already pending). Deliveries submitted together are
   * written in one statement, already claimed for attempt 1: when every slot is taken they wait for
   * one (at most ADMISSION_WAIT_MS, then they are stored unclaimed and wait in `waitingNew`).
   */
  submit(delivery: NewDelivery): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.admissions.push({ delivery, since: Date.now(), resolve, reject });
      // Whatever else is submitted in this tick (a burst of events) joins the same statement.
      if (!this.admissionScheduled) {
        this.admissionScheduled = true;
        setImmediate(() => {
          this.admissionScheduled = false;
          this.admit();
        });
      }
    });
  }

  /**
   * Makes delivery `id` due at `at` (epoch ms; now or earlier means at once). `observedAt` is when
   * that due time was read: a poll's answer older than what this process learnt since is ignored.
   */
  schedule(id: string, at: number, observedAt: number = Date.now()): void {
    if (this.stopped || this.inFlight.has(id) || this.due.has(id) || this.waitingNew.has(id)) return;
    const existing = this.timers.get(id);
    if (existing) {
      if (existing.at === at || existing.setAt > observedAt) return;
      clearTimeout(existing.handle);
    }
    const handle = setTimeout(() => {
      this.timers.delete(id);
      this.due.add(id);
      this.requestFlush();
    }, Math.max(0, at - Date.now()));
    handle.unref();
    this.timers.set(id, { at, setAt: observedAt, handle });
  }

  /**
   * Attempts in flight, deliveries waiting for their timer or a free slot, and how late attempts
   * started against their schedule (for the benchmark and metrics).
   */
  stats(): DispatcherStats {
    return {
      inFlight: this.inFlight.size,
      timers: this.timers.size,
      due: this.due.size,
      waitingNew: this.waitingNew.size + this.admissions.length,
      ...this.counters,
    };
  }

  /**
   * Claims due deliveries in batches, as many as there are free slots, with a few claims in flight
   * at once (each is a commit: under load, batches grow and commits overlap instead of queueing).
   * Retries (due by their timer) go before new deliveries waiting for their first attempt: they
   * are the ones with a schedule to keep.
   */
  private requestFlush(): void {
    while (!this.stopped && (this.due.size > 0 || this.waitingNew.size > 0) && this.claimsInFlight < MAX_CONCURRENT_CLAIMS) {
      const free = this.settings.maxInFlight - this.inFlight.size - this.claiming;
      if (free <= 0) return; // an attempt that ends asks again
      let size = Math.min(free, CLAIM_BATCH);
      let task: Promise<void>;
      let claiming: number;
      if (this.due.size > 0) {
        const batch: string[] = [];
        for (const id of this.due) {
          this.due.delete(id);
          if (!this.inFlight.has(id)) batch.push(id);
          if (batch.length >= size) break;
        }
        if (batch.length === 0) continue;
        claiming = batch.length;
        task = this.claimBatch(batch);
      } else {
        size = Math.min(size, this.freeForNew());
        if (size <= 0) return;
        const batch: NewDelivery[] = [];
        for (const [id, d] of this.waitingNew) {
          this.waitingNew.delete(id);
          batch.push(d);
          if (batch.length >= size) break;
        }
        claiming = batch.length;
        task = this.claimNewBatch(batch);
      }
      this.claimsInFlight++;
      this.claiming += claiming;
      const tracked = task.finally(() => {
        this.claimsInFlight--;
        this.claiming -= claiming;
        this.claims.delete(tracked);
        this.requestFlush();
      });
      this.claims.add(tracked);
    }
  }

  private freeForNew(): number {
    return Math.max(1, Math.floor(this.settings.maxInFlight * NEW_DELIVERY_SHARE)) - this.inFlight.size - this.claiming;
  }

  private async claimNewBatch(batch: NewDelivery[]): Promise<void> {
    let claimed: ClaimedAttempt[];
    try {
      claimed = await this.repository.claimFresh(batch, Date.now(), this.settings.leaseMs);
    } catch (error) {
      this.logger.error({ err: error, deliveries: batch.length }, 'Could not claim new webhook deliveries; retrying');
      const retryAt = Date.now() + NOT_STARTED_RETRY_MS;
      for (const d of batch) this.schedule(d.id, retryAt);
      return;
    }
    // The others were claimed by another replica in the meantime.
    this.startAll(claimed);
  }

  private async claimBatch(batch: string[]): Promise<void> {
    let claimed: ClaimedAttempt[];
    try {
      claimed = await this.repository.claim(batch, Date.now(), this.settings.leaseMs);
    } catch (error) {
      this.logger.error({ err: error, deliveries: batch.length }, 'Could not claim due webhook deliveries; retrying');
      const retryAt = Date.now() + NOT_STARTED_RETRY_MS;
      for (const id of batch) this.schedule(id, retryAt);
      return;
    }
    // Ids not claimed were taken by another replica, or are no longer due: nothing to do.
    this.startAll(claimed);
  }

  /**
   * Stores waiting new deliveries, a statement (up to INSERT_BATCH) at a time, CONCURRENT_INSERTS
   * statements at once: claimed for attempt 1 as far as slots are free, the rest only once they have
   * waited ADMISSION_WAIT_MS (or at shutdown), unclaimed. Called when deliveries arrive, when an
   * insert ends and when an attempt frees its slot.
   */
  private admit(): void {
    if (this.admissionTimer) {
      clearTimeout(this.admissionTimer);
      this.admissionTimer = undefined;
    }
    while (this.insertsInFlight.size < CONCURRENT_INSERTS && this.admissions.length > 0) {
      const free = this.stopped ? 0 : Math.min(this.freeForNew(), INSERT_BATCH);
      let take = free;
      if (take <= 0) {
        const cutoff = this.stopped ? Infinity : Date.now() - ADMISSION_WAIT_MS;
        take = 0;
        while (take < this.admissions.length && take < INSERT_BATCH && (this.admissions[take] as Admission).since <= cutoff) take++;
        if (take === 0) {
          const oldest = (this.admissions[0] as Admission).since;
          this.admissionTimer = setTimeout(() => this.admit(), Math.max(1, oldest + ADMISSION_WAIT_MS - Date.now()));
          return;
        }
      }
      const batch = this.admissions.splice(0, take);
      const claimCount = Math.max(0, Math.min(free, batch.length));
      const task = this.insertBatch(batch, claimCount).finally(() => {
        this.insertsInFlight.delete(task);
        this.admit();
      });
      this.insertsInFlight.add(task);
    }
  }

  private async insertBatch(batch: Admission[], claimCount: number): Promise<void> {
    const deliveries = batch.map((a) => a.delivery);
    this.claiming += claimCount;
    let written: Awaited<ReturnType<DeliveriesRepository['insertMany']>>;
    try {
      written = await this.repository.insertMany(deliveries, claimCount, Date.now(), this.settings.leaseMs);
    } catch (error) {
      for (const a of batch) a.reject(error);
      return;
    } finally {
      this.claiming -= claimCount;
    }
    this.startAll(written.claimed);
    const claimed = new Set(written.claimed.map((c) => c.deliveryId));
    // Inserted but not claimed (no free slot): due now, claimed when a slot frees up.
    for (const d of deliveries) {
      if (!written.inserted.has(d.id) || claimed.has(d.id)) continue;
      if (this.waitingNew.size < MAX_WAITING_NEW && !this.stopped) this.waitingNew.set(d.id, d);
      else this.schedule(d.id, d.firstAttemptAt);
    }
    if (this.waitingNew.size > 0) this.requestFlush();
    for (const a of batch) a.resolve(written.inserted.has(a.delivery.id));
  }

  /**
   * Starts claimed attempts. Attempts that start together ask for each key's secret once: the
   * lookup is made after they were claimed, so each is still signed with the secret current when
   * it started (a renewal before that is always seen).
   */
  private startAll(claims: readonly ClaimedAttempt[]): void {
    const lookups = new Map<string, Promise<WebhookSecretReply>>();
    for (const claim of claims) {
      let lookup = lookups.get(claim.apiKeyId);
      if (!lookup) {
        lookup = this.keys.get(claim.apiKeyId);
        lookups.set(claim.apiKeyId, lookup);
      }
      this.start(claim, lookup);
    }
  }

  private start(claim: ClaimedAttempt, lookup: Promise<WebhookSecretReply>): void {
    const task = this.attempt(claim, lookup)
      .catch((error: unknown) =>
        // The lease expires and the delivery resumes; the attempt in flight is then marked interrupted.
        this.logger.error({ err: error, deliveryId: claim.deliveryId }, 'Webhook attempt not recorded'),
      )
      .finally(() => {
        this.inFlight.delete(claim.deliveryId);
        // A free slot goes to a retry first, then to a stored new delivery, then to one not stored yet.
        if (this.due.size > 0 || this.waitingNew.size > 0) this.requestFlush();
        if (this.admissions.length > 0) this.admit();
      });
    this.inFlight.set(claim.deliveryId, task);
  }

  private async attempt(claim: ClaimedAttempt, lookup: Promise<WebhookSecretReply>): Promise<void> {
    let secret: string | null;
    try {
      secret = (await lookup).secret;
    } catch (error) {
      // Our own dependency is down: nothing was sent, so the attempt is given back, not spent.
      this.logger.warn({ err: error, deliveryId: claim.deliveryId }, 'Signing secret unavailable; webhook attempt postponed');
      const retryAt = Date.now() + NOT_STARTED_RETRY_MS;
      if (await this.repository.releaseClaim(claim, retryAt)) this.schedule(claim.deliveryId, retryAt);
      return;
    }

    const lateness = Date.now() - claim.dueAt;
    this.counters.started++;
    if (lateness > 100) this.counters.lateOver100ms++;
    this.counters.maxLatenessMs = Math.max(this.counters.maxLatenessMs, lateness);
    const outcome: AttemptOutcome = secret
      ? await this.sender.send({ url: claim.url, deliveryId: claim.deliveryId, event: claim.event, body: claim.body, secret, test: claim.test })
      : {
          ok: false,
          startedAt: Date.now(),
          durationMs: 0,
          statusCode: null,
          errorClass: 'no_secret',
          error: 'Not sent: the API key has no webhook signing secret. Generate one in the dashboard (Settings, API Keys).',
        };
    this.metrics?.attemptFinished({
      outcome: outcome.ok ? 'succeeded' : (outcome.errorClass ?? 'connection'),
      durationMs: outcome.durationMs,
      attemptNumber: claim.number,
    });
    const next = outcome.ok ? null : nextAttemptAt(claim.number, outcome.startedAt + outcome.durationMs);
    const recorded = await this.outcomes.push({ claim, result: { ...outcome, succeeded: outcome.ok, nextAttemptAt: next } });
    if (!recorded) {
      this.logger.warn({ deliveryId: claim.deliveryId, attempt: claim.number }, 'Webhook attempt outcome came after its lease expired');
      return;
    }
    if (next !== null) this.schedule(claim.deliveryId, next);
    else if (!outcome.ok) this.logGaveUp(claim, outcome);
    else this.metrics?.deliveryFinished('succeeded');
  }

  /** The structured line of a delivery that failed for good (the generation itself is unaffected). */
  private logGaveUp(
    d: Pick<ExhaustedDelivery, 'jobId' | 'accountId' | 'event' | 'url'> & { deliveryId: string },
    last: Pick<AttemptOutcome, 'statusCode' | 'errorClass'> | null,
  ): void {
    this.metrics?.deliveryFinished('failed');
    this.logger.warn(
      {
        msg: 'webhook delivery failed',
        deliveryId: d.deliveryId,
        jobId: d.jobId,
        accountId: d.accountId,
        event: d.event,
        // The origin only: a URL's path or query may carry the customer's own tokens.
        destination: safeOrigin(d.url),
        attempts: MAX_ATTEMPTS,
        lastStatusCode: last?.statusCode ?? null,
        lastErrorClass: last?.errorClass ?? 'interrupted',
      },
      'Webhook delivery failed after 3 attempts',
    );
  }

  private poll(): void {
    if (this.stopped || this.polling) return;
    this.polling = this.pollOnce()
      .catch((error: unknown) => this.logger.error({ err: error }, 'Webhook poll failed'))
      .finally(() => (this.polling = undefined));
  }

  private async pollOnce(): Promise<void> {
    for (const d of await this.repository.failExhausted(Date.now(), 100)) {
      this.logGaveUp({ ...d, deliveryId: d.id }, null);
    }
    if (this.stopped) return;
    const now = Date.now();
    const soon = await this.repository.dueBy(now, now + 2 * this.settings.pollIntervalMs, POLL_LIMIT);
    for (const { id, at } of soon) this.schedule(id, at, now);
  }
}

interface Admission {
  delivery: NewDelivery;
  /** Epoch ms of `submit`. */
  since: number;
  resolve: (stored: boolean) => void;
  reject: (error: unknown) => void;
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}
