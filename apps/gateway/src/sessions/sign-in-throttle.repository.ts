import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';
import { EMPTY_THROTTLE_STATE, ThrottleState } from './sign-in-throttle';

type Row = { key: string; failures: number; last_attempt_at: Date | null; locked_until: Date | null };

/** The throttle counters. Each change runs under the rows' locks, so concurrent attempts count exactly. */
@Injectable()
export class SignInThrottleRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /**
   * Locks the counters of `keys` (created empty when missing), hands their states to `decide`, and
   * writes back the states it returns, in one transaction. Keys are locked in sorted order, so two
   * transactions over the same keys cannot deadlock.
   */
  async update<T>(
    keys: string[],
    decide: (states: Map<string, ThrottleState>) => { writes: Map<string, ThrottleState>; result: T },
  ): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    return this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO sign_in_throttle (key) SELECT unnest($1::text[]) ON CONFLICT (key) DO NOTHING`,
        [sorted],
      );
      const rows = await sqlRows<Row>(
        tx,
        `SELECT key, failures, last_attempt_at, locked_until FROM sign_in_throttle WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`,
        [sorted],
      );
      const states = new Map<string, ThrottleState>(sorted.map((key) => [key, EMPTY_THROTTLE_STATE]));
      for (const row of rows) {
        states.set(row.key, { failures: row.failures, lastAttemptAt: row.last_attempt_at, lockedUntil: row.locked_until });
      }
      const { writes, result } = decide(states);
      for (const [key, state] of writes) {
        await tx.query(
          `UPDATE sign_in_throttle SET failures = $2, last_attempt_at = $3, locked_until = $4 WHERE key = $1`,
          [key, state.failures, state.lastAttemptAt, state.lockedUntil],
        );
      }
      return result;
    });
  }

  /** Counters with nothing to remember (no lock, last attempt long ago). */
  async deleteStale(olderThanSeconds: number): Promise<number> {
    const rows = await sqlRows<{ key: string }>(
      this.db,
      `DELETE FROM sign_in_throttle
        WHERE (locked_until IS NULL OR locked_until < now())
          AND (last_attempt_at IS NULL OR last_attempt_at < now() - make_interval(secs => $1))
        RETURNING key`,
      [olderThanSeconds],
    );
    return rows.length;
  }
}
