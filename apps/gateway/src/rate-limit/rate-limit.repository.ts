import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';

/** A slice of a window: hits numbered `first` to `last` (none when `last < first`). */
export interface WindowSlice {
  /** The window (its start on the database clock); what a slice is given back to. */
  windowStart: Date;
  first: number;
  last: number;
  /** Milliseconds until the window ends (at least 1). */
  msLeft: number;
}

/**
 * Counters of fixed rate-limit windows in the `auth` schema, shared by all gateway replicas.
 * Windows are aligned on the database clock (so replicas with skewed clocks agree on them). A row's
 * `hits` counts the hits handed out to gateways, spent or not: it never exceeds the limit, so the
 * hits all replicas spend never do either.
 */
@Injectable()
export class RateLimitRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /**
   * Leases up to `want` hits of the key's current window, as many as the limit leaves (possibly
   * none). One statement: the row is created or updated under its own row lock, so concurrent
   * leases from any number of replicas get disjoint ranges whose total never passes `limit`
   * (never read-then-write). The SET expressions both read the row before the update.
   */
  async lease(key: string, windowMs: number, limit: number, want: number): Promise<WindowSlice> {
    const rows = await sqlRows<{ hits: number; last_grant: number; window_start: Date; ms_left: string }>(
      this.db,
      `WITH w AS (
         SELECT to_timestamp(floor(extract(epoch FROM clock_timestamp()) * 1000 / $2::int) * $2::int / 1000.0) AS start
       )
       INSERT INTO rate_limit_windows AS r (key, window_start, expires_at, hits, last_grant)
       SELECT $1, w.start, w.start + $2::int * interval '1 millisecond', LEAST($4::int, GREATEST($3::int, 0)), LEAST($4::int, GREATEST($3::int, 0)) FROM w
       ON CONFLICT (key, window_start) DO UPDATE
         SET hits = r.hits + LEAST($4::int, GREATEST($3::int - r.hits, 0)),
             last_grant = LEAST($4::int, GREATEST($3::int - r.hits, 0))
       RETURNING r.hits, r.last_grant, r.window_start, ceil(extract(epoch FROM r.expires_at - clock_timestamp()) * 1000) AS ms_left`,
      [key, windowMs, limit, want],
    );
    const row = rows[0];
    return { windowStart: row.window_start, first: row.hits - row.last_grant + 1, last: row.hits, msLeft: Math.max(1, Number(row.ms_left)) };
  }

  /**
   * Gives back hits of a slice that will not be spent, while their window lasts (after it, they
   * would be worth nothing). Returns whether the window was still there to take them.
   */
  async giveBack(key: string, windowStart: Date, hits: number): Promise<boolean> {
    const rows = await sqlRows<unknown>(
      this.db,
      `UPDATE rate_limit_windows SET hits = GREATEST(hits - $3::int, 0)
        WHERE key = $1 AND window_start = $2 AND expires_at > clock_timestamp() RETURNING 1`,
      [key, windowStart, hits],
    );
    return rows.length > 0;
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
