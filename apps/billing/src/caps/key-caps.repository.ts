import { Inject, Injectable } from '@nestjs/common';
import { readRows, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { BILLING_DB } from '../config/billing.tokens';

/** A key's caps (null: none) and what it has spent in the current UTC day and month. */
export interface KeyCapRow {
  keyId: string;
  perDay: number | null;
  perMonth: number | null;
  spentToday: number;
  spentThisMonth: number;
}

/** What a change sets: a number sets the cap, null removes it, undefined keeps it. */
export interface KeyCapChange {
  perDay?: number | null;
  perMonth?: number | null;
}

/**
 * Spending caps per API key (`key_caps`) and the spend they are checked against (`key_spend`, kept
 * by `reserve_batch` and `settle_batch`, migration 1764870000000). The caps are enforced there, in
 * the reserve itself; this only reads them and sets them.
 */
@Injectable()
export class KeyCapsRepository {
  constructor(@Inject(BILLING_DB) private readonly db: DataSource) {}

  /**
   * Sets (or removes) a key's caps. Null when the account has no billing row, or when the key's caps
   * belong to another account (a key id is never moved between accounts). A change takes effect on
   * the next reserve: reserves read the caps under the account's lock, so one in flight sees the caps
   * before or after, never half.
   */
  async set(accountId: string, keyId: string, change: KeyCapChange): Promise<KeyCapRow | null> {
    const rows = await sqlRows<{ api_key_id: string }>(
      this.db,
      `INSERT INTO key_caps (api_key_id, account_id, per_day, per_month)
       SELECT $2, a.account_id, $4, $6 FROM accounts a WHERE a.account_id = $1
       ON CONFLICT (api_key_id) DO UPDATE
       SET per_day = CASE WHEN $3 THEN EXCLUDED.per_day ELSE key_caps.per_day END,
           per_month = CASE WHEN $5 THEN EXCLUDED.per_month ELSE key_caps.per_month END,
           updated_at = now()
       WHERE key_caps.account_id = EXCLUDED.account_id
       RETURNING api_key_id`,
      [accountId, keyId, change.perDay !== undefined, change.perDay ?? null, change.perMonth !== undefined, change.perMonth ?? null],
    );
    if (rows.length === 0) return null;
    const [row] = await this.list(accountId, [keyId]);
    return row;
  }

  /**
   * The caps and spend of the account's keys (`keyIds`: these keys only, each with a row even when it
   * has neither cap nor spend). The spend is per UTC day and month as of the database's clock.
   */
  async list(accountId: string, keyIds: string[] | null = null): Promise<KeyCapRow[]> {
    const rows = await readRows<{ key_id: string; per_day: number | null; per_month: number | null; spent_today: string; spent_month: string }>(
      this.db,
      `WITH period AS (
         SELECT (now() AT TIME ZONE 'UTC')::date AS today, date_trunc('month', (now() AT TIME ZONE 'UTC')::date)::date AS month_start
       ), spend AS (
         SELECT s.api_key_id,
                coalesce(sum(s.credits) FILTER (WHERE s.day = p.today), 0) AS spent_today,
                coalesce(sum(s.credits), 0) AS spent_month
         FROM key_spend s, period p
         WHERE s.account_id = $1 AND s.day >= p.month_start
         GROUP BY s.api_key_id
       ), keys AS (
         SELECT unnest($2::uuid[]) AS key_id WHERE $2::uuid[] IS NOT NULL
         UNION
         SELECT api_key_id FROM key_caps WHERE account_id = $1 AND $2::uuid[] IS NULL
         UNION
         SELECT api_key_id FROM spend WHERE $2::uuid[] IS NULL
       )
       SELECT k.key_id, c.per_day, c.per_month, coalesce(s.spent_today, 0) AS spent_today, coalesce(s.spent_month, 0) AS spent_month
       FROM keys k
       LEFT JOIN key_caps c ON c.api_key_id = k.key_id AND c.account_id = $1
       LEFT JOIN spend s ON s.api_key_id = k.key_id
       ORDER BY k.key_id`,
      [accountId, keyIds],
    );
    return rows.map((r) => ({
      keyId: r.key_id,
      perDay: r.per_day,
      perMonth: r.per_month,
      spentToday: Number(r.spent_today),
      spentThisMonth: Number(r.spent_month),
    }));
  }
}
