import { Inject, Injectable } from '@nestjs/common';
import { PreparedStatement, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { BILLING_DB } from '../billing.tokens';

/** An account's threshold (null: off), its available credits, and whether this crossing was alerted. */
export interface LowBalanceRow {
  threshold: number | null;
  available: number;
  alerted: boolean;
}

/** An outbox row the relay holds: published on `pattern` with `id` as the message id. */
export interface BillingOutboxMessage {
  id: string;
  pattern: string;
  payload: unknown;
}

// Rows nobody holds or whose lease ended (a relay that died between commit and publish, or between
// publish and mark), oldest first. SKIP LOCKED: a concurrent claim's rows are its own.
const CLAIM = new PreparedStatement<BillingOutboxMessage>(
  'billing.outbox_claim',
  `UPDATE outbox SET lease_owner = $1, lease_expires_at = now() + ($3::int * interval '1 millisecond')
   WHERE id IN (
     SELECT id FROM outbox
     WHERE published_at IS NULL AND (lease_expires_at IS NULL OR lease_expires_at < now())
     ORDER BY created_at LIMIT $2
     FOR UPDATE SKIP LOCKED)
   RETURNING id, pattern, payload`,
);

/**
 * The threshold (`accounts.low_balance_*`) and billing's outbox. The crossing itself is detected by
 * the trigger of migration 1764980000000, inside whatever statement moves the balance.
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

  /** Leases up to `batch` unpublished rows to `owner` for `leaseMs`, and commits. */
  claim(owner: string, batch: number, leaseMs: number): Promise<BillingOutboxMessage[]> {
    return CLAIM.rows(this.db, [owner, batch, leaseMs]);
  }

  async markPublished(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await sqlRows(this.db, `UPDATE outbox SET published_at = now(), lease_owner = NULL, lease_expires_at = NULL WHERE id = ANY($1::uuid[]) AND published_at IS NULL`, [ids]);
  }

  /** A publish failed: free for the next claim at once, and the attempt is counted. */
  async release(owner: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await sqlRows(
      this.db,
      `UPDATE outbox SET lease_owner = NULL, lease_expires_at = NULL, publish_attempts = publish_attempts + 1
       WHERE id = ANY($2::uuid[]) AND lease_owner = $1 AND published_at IS NULL`,
      [owner, ids],
    );
  }
}
