import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../gateway.tokens';

export interface WindowCount {
  /** Hits in the current window, this one included. */
  hits: number;
  /** Milliseconds until the window ends (at least 1). */
  msLeft: number;
}

/**
 * Counters of fixed rate-limit windows in the `auth` schema, shared by all gateway replicas.
 * Windows are aligned on the database clock (so replicas with skewed clocks agree on them).
 */
@Injectable()
export class RateLimitRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /**
   * Counts one hit in the key's current window and returns the new count. One statement: the
   * row is created or incremented under its own row lock, so concurrent hits from any number of
   * replicas each see a distinct count (never read-then-write).
   */
  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const rows = await sqlRows<{ hits: number; ms_left: string }>(
      this.db,
      `WITH w AS (
         SELECT to_timestamp(floor(extract(epoch FROM clock_timestamp()) * 1000 / $2::int) * $2::int / 1000.0) AS start
       )
       INSERT INTO rate_limit_windows AS r (key, window_start, expires_at, hits)
       SELECT $1, w.start, w.start + $2::int * interval '1 millisecond', 1 FROM w
       ON CONFLICT (key, window_start) DO UPDATE SET hits = r.hits + 1
       RETURNING r.hits, ceil(extract(epoch FROM r.expires_at - clock_timestamp()) * 1000) AS ms_left`,
      [key, windowMs],
    );
    return { hits: rows[0].hits, msLeft: Math.max(1, Number(rows[0].ms_left)) };
  }

  /** Removes windows that ended before `graceMs` ago; returns how many. */
  async deleteExpired(graceMs: number, batch = 10_000): Promise<number> {
    const rows = await sqlRows<unknown>(
      this.db,
      `DELETE FROM rate_limit_windows WHERE (key, window_start) IN (
         SELECT key, window_start FROM rate_limit_windows
         WHERE expires_at < clock_timestamp() - $1::int * interval '1 millisecond' LIMIT $2
       ) RETURNING 1`,
      [graceMs, batch],
    );
    return rows.length;
  }
}
