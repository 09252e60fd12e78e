import { Inject, Injectable } from '@nestjs/common';
import { readRows, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { BILLING_DB } from '../config/billing.tokens';
import { LedgerEntryEntity } from '../accounts/ledger-entry.entity';
import { BillingNotice, writeNotice } from './payment-records';

export interface TopUpSettings {
  packId: string;
  failures: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
}

/** What a successful top-up writes: the purchase row (its key `top-up:<attempt>`), the credits, the ledger. */
export interface TopUpGrant {
  accountId: string;
  packId: string;
  credits: number;
  amount: number;
  currency: string;
  paymentIntentId: string;
  chargeId: string | null;
  receiptUrl: string | null;
}

/**
 * Automatic top-ups (migration 1766000000002): the settings, the card saved by a pack payment, and
 * one attempt row per crossing. The attempt row's unique crossing key makes a crossing (or a retry,
 * whatever number of replicas sweep) pay at most once.
 */
@Injectable()
export class TopUpsRepository {
  constructor(@Inject(BILLING_DB) private readonly db: DataSource) {}

  async settings(accountId: string): Promise<TopUpSettings | null> {
    const [row] = await readRows<{ pack_id: string; failures: number; next_attempt_at: Date | null; last_error: string | null }>(this.db,
      `SELECT pack_id, failures, next_attempt_at, last_error FROM top_up_settings WHERE account_id = $1`,
      [accountId],
    );
    return row ? { packId: row.pack_id, failures: row.failures, nextAttemptAt: row.next_attempt_at, lastError: row.last_error } : null;
  }

  /** Sets the pack (a change clears a failure's back-off: the owner acted), or turns top-ups off (null). */
  async setPack(accountId: string, packId: string | null): Promise<void> {
    if (packId === null) {
      await sqlRows(this.db, `DELETE FROM top_up_settings WHERE account_id = $1`, [accountId]);
      return;
    }
    await sqlRows(this.db,
      `INSERT INTO top_up_settings (account_id, pack_id) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET pack_id = EXCLUDED.pack_id, failures = 0, next_attempt_at = NULL, last_error = NULL, updated_at = now()`,
      [accountId, packId],
    );
  }

  async savedCard(accountId: string): Promise<string | null> {
    const [row] = await readRows<{ payment_method_id: string }>(this.db, `SELECT payment_method_id FROM saved_cards WHERE account_id = $1`, [accountId]);
    return row?.payment_method_id ?? null;
  }

  /** The attempt of one crossing; null when that crossing has one already (a redelivered event, another replica's sweep). */
  async startAttempt(id: string, accountId: string, crossingKey: string, packId: string): Promise<string | null> {
    const rows = await sqlRows<{ id: string }>(this.db,
      `INSERT INTO top_up_attempts (id, account_id, crossing_key, pack_id, status) VALUES ($1, $2, $3, $4, 'pending') ON CONFLICT (crossing_key) DO NOTHING RETURNING id`,
      [id, accountId, crossingKey, packId],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * The paid top-up: the attempt (pending → succeeded, once), its purchase row, the credits and the
   * ledger row, and the back-off cleared, in one transaction under the account row's lock.
   */
  async succeed(attemptId: string, grant: TopUpGrant, note: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const done = await sqlRows<unknown>(tx,
        `UPDATE top_up_attempts SET status = 'succeeded', payment_intent_id = $2 WHERE id = $1 AND status = 'pending' RETURNING id`,
        [attemptId, grant.paymentIntentId],
      );
      if (done.length === 0) return false;
      await sqlRows(tx, `SELECT 1 FROM accounts WHERE account_id = $1 FOR UPDATE`, [grant.accountId]);
      await sqlRows(tx,
        `INSERT INTO purchases (checkout_session_id, account_id, pack_id, credits, amount, currency, payment_intent_id, charge_id, receipt_url)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [`top-up:${attemptId}`, grant.accountId, grant.packId, grant.credits, grant.amount, grant.currency, grant.paymentIntentId, grant.chargeId, grant.receiptUrl],
      );
      await sqlRows(tx, `UPDATE accounts SET available = available + $2, updated_at = now() WHERE account_id = $1`, [grant.accountId, grant.credits]);
      await tx.getRepository(LedgerEntryEntity).insert({ accountId: grant.accountId, kind: 'grant', availableDelta: grant.credits, heldDelta: 0, jobId: null, modelId: null, note });
      await sqlRows(tx, `UPDATE top_up_settings SET failures = 0, next_attempt_at = NULL, last_error = NULL, updated_at = now() WHERE account_id = $1`, [grant.accountId]);
      return true;
    });
  }

  /** A declined (or unconfirmable) top-up: the attempt failed, the back-off grows, the owners' notice. */
  async fail(attemptId: string, accountId: string, error: string, nextAttemptAt: Date, notice: BillingNotice): Promise<void> {
    await this.db.transaction(async (tx) => {
      const done = await sqlRows<unknown>(tx, `UPDATE top_up_attempts SET status = 'failed', error = $2 WHERE id = $1 AND status = 'pending' RETURNING id`, [attemptId, error]);
      if (done.length === 0) return;
      await sqlRows(tx,
        `UPDATE top_up_settings SET failures = failures + 1, next_attempt_at = $2, last_error = $3, updated_at = now() WHERE account_id = $1`,
        [accountId, nextAttemptAt, error],
      );
      await writeNotice(tx, accountId, notice);
    });
  }

  /** Accounts whose top-up failed, whose back-off ended, and that are still below their threshold (the sweep retries them). */
  async dueRetries(now: Date): Promise<Array<{ accountId: string; failures: number }>> {
    const rows = await readRows<{ account_id: string; failures: number }>(this.db,
      `SELECT t.account_id, t.failures FROM top_up_settings t JOIN accounts a ON a.account_id = t.account_id
        WHERE t.last_error IS NOT NULL AND t.next_attempt_at <= $1 AND a.low_balance_threshold IS NOT NULL AND a.available < a.low_balance_threshold
        ORDER BY t.account_id LIMIT 500`,
      [now],
    );
    return rows.map((r) => ({ accountId: r.account_id, failures: r.failures }));
  }
}
