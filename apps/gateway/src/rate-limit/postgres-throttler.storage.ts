import { Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { RateLimitRepository } from './rate-limit.repository';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * @nestjs/throttler storage in PostgreSQL, shared by every gateway replica (and used the same way in
 * standalone). Fixed windows of `ttl` aligned on the database clock; each increment is one atomic
 * upsert, so N replicas under any concurrency admit at most `limit` hits per window.
 *
 * A hit over the limit is refused until its window ends: `blockDuration` longer than the window
 * is not supported (the gateway does not use it).
 */
@Injectable()
export class PostgresThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly windows: RateLimitRepository) {}

  async increment(key: string, ttl: number, limit: number, _blockDuration: number, _throttlerName: string): Promise<ThrottlerStorageRecord> {
    const { hits, msLeft } = await this.windows.hit(key, ttl);
    const secondsLeft = Math.max(1, Math.ceil(msLeft / 1000));
    const isBlocked = hits > limit;
    return { totalHits: hits, timeToExpire: secondsLeft, isBlocked, timeToBlockExpire: isBlocked ? secondsLeft : 0 };
  }
}
