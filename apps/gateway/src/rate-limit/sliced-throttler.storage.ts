import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '@gen/observability';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { RATE_LIMIT_SETTINGS, RateLimitSettings } from '../settings/rate-limit.settings';
import { RateLimitRepository } from './rate-limit.repository';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Waiter {
  limit: number;
  resolve(record: ThrottlerStorageRecord): void;
  reject(error: unknown): void;
}

/** This gateway's part of one key's current window. */
interface Account {
  key: string;
  /** The window the slice belongs to (database clock); null before the first lease. */
  windowStart: Date | null;
  /** When that window ends, on this process's clock (measured from before the lease was sent: never late). */
  endsAt: number;
  /** The slice: hits numbered `next` to `last` are this gateway's to spend (none when next > last). */
  next: number;
  last: number;
  /** The window's hits handed out to all gateways, as of this gateway's last lease. */
  taken: number;
  /** The window was used up: refuse here, without asking, until then. */
  exhaustedUntil: number;
  /** Requests waiting for the lease in progress (or the next one). */
  waiting: Waiter[];
  leasing: boolean;
  /** The pace: hits spent since the last lease, and when it was. */
  spentSinceLease: number;
  leasedAt: number;
  lastUsedAt: number;
}

/**
 * @nestjs/throttler storage that spends an account's window in slices. Each gateway leases a slice
 * of the account's fixed window from PostgreSQL in one atomic statement (RateLimitRepository.lease)
 * and spends it in memory, so a busy account costs one shared write per slice, not per request.
 * The database hands out at most `limit` hits per window in all, so N replicas together never admit
 * more than the limit; a replica killed with its slice loses only that slice's unspent hits.
 *
 * A slice's size follows this gateway's recent pace for the account (what it would spend in
 * `sliceHorizonMs`), plus the requests waiting for it, and takes at most a share of what is left of
 * the window, so the end of a window is leased request by request and small limits are exact. Hits
 * a slice holds unused are given back after `idleReturnMs`, and expire with the window otherwise.
 *
 * Hits are numbered across replicas (the window's counter), and `totalHits` is the hit's number, so
 * `RateLimit-Remaining` is `limit - number`: exact with one gateway; with several it is this
 * gateway's view (other replicas' unspent slices count as used). A hit over the limit is refused
 * until its window ends: `blockDuration` longer than the window is not supported (the gateway does
 * not use it).
 */
@Injectable()
export class SlicedThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger(SlicedThrottlerStorage.name);
  private readonly accounts = new Map<string, Account>();
  private readonly sweeper: PeriodicTask;

  constructor(
    private readonly windows: RateLimitRepository,
    @Inject(RATE_LIMIT_SETTINGS) private readonly settings: RateLimitSettings,
  ) {
    this.sweeper = new PeriodicTask({
      name: 'Rate-limit sweep',
      intervalMs: Math.max(100, Math.floor(settings.idleReturnMs / 2)),
      run: () => this.sweep(),
      onError: (error) => this.logger.warn({ err: error }, 'Rate-limit sweep failed'),
    });
  }

  increment(key: string, ttl: number, limit: number, _blockDuration: number, _throttlerName: string): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    let account = this.accounts.get(key);
    if (!account) {
      account = { key, windowStart: null, endsAt: 0, next: 1, last: 0, taken: 0, exhaustedUntil: 0, waiting: [], leasing: false, spentSinceLease: 0, leasedAt: now, lastUsedAt: now };
      this.accounts.set(key, account);
      this.sweeper.start();
    }
    account.lastUsedAt = now;
    if (account.windowStart !== null && now >= account.endsAt) this.windowEnded(account);
    if (account.next <= account.last) return Promise.resolve(this.spend(account, limit, now));
    if (account.exhaustedUntil > now) return Promise.resolve(this.refuse(account, limit, now));
    return new Promise((resolve, reject) => {
      (account as Account).waiting.push({ limit, resolve, reject });
      if (!(account as Account).leasing) void this.lease(account as Account, ttl);
    });
  }

  /** Gives back every unspent slice (a graceful stop: the other replicas can use them). */
  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
    const now = Date.now();
    await Promise.all([...this.accounts.values()].map((account) => this.giveBack(account, now)));
  }

  /** One pass of the background sweep (also run by a timer): idle slices given back, ended windows forgotten. */
  async sweep(): Promise<void> {
    const now = Date.now();
    const returns: Array<Promise<void>> = [];
    for (const account of this.accounts.values()) {
      if (account.leasing || account.waiting.length > 0) continue;
      if (account.windowStart === null || now >= account.endsAt) {
        // Nothing held is worth anything now; a new request starts afresh.
        if (now - account.lastUsedAt >= this.settings.idleReturnMs) this.accounts.delete(account.key);
      } else if (account.next <= account.last && now - account.lastUsedAt >= this.settings.idleReturnMs) {
        returns.push(this.giveBack(account, now));
      }
    }
    // Nothing to sweep until a request comes (it starts the timer again); stop() ends once this pass has.
    if (this.accounts.size === 0) void this.sweeper.stop();
    await Promise.all(returns);
  }

  private async lease(account: Account, ttl: number): Promise<void> {
    account.leasing = true;
    try {
      while (account.waiting.length > 0) {
        const batch = account.waiting.splice(0);
        const limit = batch[batch.length - 1].limit;
        const want = batch.length + this.ahead(account, limit);
        const sentAt = Date.now();
        let slice;
        try {
          slice = await this.windows.lease(account.key, ttl, limit, want);
        } catch (error) {
          for (const waiter of batch) waiter.reject(error);
          continue;
        }
        const now = Date.now();
        const sameWindow = account.windowStart !== null && account.windowStart.getTime() === slice.windowStart.getTime();
        if (!sameWindow) account.windowStart = slice.windowStart;
        account.endsAt = sentAt + slice.msLeft;
        account.next = slice.first;
        account.last = slice.last;
        account.taken = slice.last;
        account.spentSinceLease = 0;
        account.leasedAt = now;
        // Fewer than asked: the window is used up (for now; a slice given back may free some).
        const granted = slice.last - slice.first + 1;
        account.exhaustedUntil = granted < want ? Math.min(account.endsAt, now + this.settings.exhaustedRecheckMs) : 0;
        for (const waiter of batch) waiter.resolve(this.take(account, waiter.limit, now));
        // Requests that came during the lease: from what is left, or refused, or the next lease.
        while (account.waiting.length > 0 && (account.next <= account.last || account.exhaustedUntil > now)) {
          const waiter = account.waiting.shift() as Waiter;
          waiter.resolve(this.take(account, waiter.limit, now));
        }
      }
    } finally {
      account.leasing = false;
    }
  }

  /**
   * Hits to lease beyond the requests waiting: what the recent pace spends in the horizon, growing
   * at most twofold per lease (a slice spent faster than the horizon doubles the next one), within a
   * share of what is left of the window.
   */
  private ahead(account: Account, limit: number): number {
    if (account.windowStart === null) return 0;
    const elapsed = Math.max(1, Date.now() - account.leasedAt);
    const byPace = Math.floor(account.spentSinceLease * Math.min(2, this.settings.sliceHorizonMs / elapsed));
    const byShare = Math.floor(Math.max(0, limit - account.taken) / this.settings.sliceShareDivisor);
    return Math.max(0, Math.min(byPace, byShare, this.settings.maxSliceHits));
  }

  private take(account: Account, limit: number, now: number): ThrottlerStorageRecord {
    return account.next <= account.last ? this.spend(account, limit, now) : this.refuse(account, limit, now);
  }

  private spend(account: Account, limit: number, now: number): ThrottlerStorageRecord {
    const hit = account.next++;
    account.spentSinceLease++;
    const secondsLeft = this.secondsLeft(account, now);
    // A slice leased under a higher limit (the plan changed since) admits no more than the new one.
    const isBlocked = hit > limit;
    return { totalHits: hit, timeToExpire: secondsLeft, isBlocked, timeToBlockExpire: isBlocked ? secondsLeft : 0 };
  }

  private refuse(account: Account, limit: number, now: number): ThrottlerStorageRecord {
    const secondsLeft = this.secondsLeft(account, now);
    return { totalHits: limit + 1, timeToExpire: secondsLeft, isBlocked: true, timeToBlockExpire: secondsLeft };
  }

  private secondsLeft(account: Account, now: number): number {
    return Math.max(1, Math.ceil((account.endsAt - now) / 1000));
  }

  private windowEnded(account: Account): void {
    // Unspent hits of an ended window are worth nothing: they expire with it.
    account.next = 1;
    account.last = 0;
    account.taken = 0;
    account.exhaustedUntil = 0;
  }

  private async giveBack(account: Account, now: number): Promise<void> {
    const unspent = account.last - account.next + 1;
    if (unspent <= 0 || account.windowStart === null || now >= account.endsAt) return;
    account.last = account.next - 1;
    try {
      await this.windows.giveBack(account.key, account.windowStart, unspent);
    } catch (error) {
      this.logger.warn({ err: error, hits: unspent }, 'Unused rate-limit hits not given back; they expire with their window');
    }
  }

}
