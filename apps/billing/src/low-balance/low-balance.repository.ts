import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { BILLING_DB } from '../config/billing.tokens';

/** An account's threshold (null: off), its available credits, and whether this crossing was alerted. */
export interface LowBalanceRow {
  threshold: number | null;
  available: number;
  alerted: boolean;
}

/**
 * The threshold (`accounts.low_balance_*`). The crossing itself is detected by the trigger of
 * migration 1764980000000, inside whatever statement moves the balance; it writes billing's outbox
 * (`BillingOutboxRepository`).
 */
@Injectable()
export class LowBalanceRepository {
  constructor(@Inject(BILLING_DB) private readonly db: DataSource) {}

  async find(accountId: string): Promise<LowBalanceRow | null> {
    const [row] = await sqlRows<{ low_balance_threshold: number | null; available: string; low_balance_alerted: boolean }>(
      this.db,
      `SELECT low_balance_threshold, available, low_balance_alerted FROM accounts WHERE account_id = $1`,
      [accountId],
    );
    return row ? { threshold: row.low_balance_threshold, available: Number(row.available), alerted: row.low_balance_alerted } : null;
  }

  /**
   * Sets the threshold (null: off) and arms it: the next decrease of the balance that ends below the
   * threshold alerts, even if the balance is already below it now (setting it alerts nothing by
   * itself: the trigger alerts only when `available` goes down). Under the row's lock, like every
   * balance change, so a concurrent hold sees the old or the new setting, never half.
   */
  async set(accountId: string, threshold: number | null): Promise<LowBalanceRow | null> {
    const [row] = await sqlRows<{ low_balance_threshold: number | null; available: string; low_balance_alerted: boolean }>(
      this.db,
      `UPDATE accounts SET low_balance_threshold = $2, low_balance_alerted = false, updated_at = now()
       WHERE account_id = $1 RETURNING low_balance_threshold, available, low_balance_alerted`,
      [accountId, threshold],
    );
    return row ? { threshold: row.low_balance_threshold, available: Number(row.available), alerted: row.low_balance_alerted } : null;
  }
}
