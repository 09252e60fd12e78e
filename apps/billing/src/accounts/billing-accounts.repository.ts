import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { PreparedStatement, readSqlFile, sqlRows } from '@gen/persistence';
import type { PlanName } from '@gen/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { BILLING_DB } from '../config/billing.tokens';
import { LedgerEntryEntity, LedgerKind } from './ledger-entry.entity';
import { BillingAccountEntity } from './billing-account.entity';

/** An account's plan, limits and balance. */
export interface BillingAccount {
  accountId: string;
  plan: PlanName;
  requestsPerMinute: number;
  parallelTasks: number;
  available: number;
  held: number;
}

const FIND_ACCOUNT = new PreparedStatement<{
  account_id: string;
  plan: PlanName;
  requests_per_minute: number;
  parallel_tasks: number;
  available: string;
  held: string;
}>('billing.find_account', readSqlFile(join(__dirname, 'find-account.sql')), { idempotent: true });

/**
 * Billing accounts: their plan and limits, the opening grant and operator adjustments. Every balance
 * change is a conditional update of the account row, written with its ledger row in one transaction.
 */
@Injectable()
export class BillingAccountsRepository {
  constructor(@Inject(BILLING_DB) private readonly db: DataSource) {}

  /** The account's plan, limits and balance (every balance read and plan lookup: a prepared statement). */
  async findAccount(accountId: string): Promise<BillingAccount | null> {
    const [row] = await FIND_ACCOUNT.rows(this.db, [accountId]);
    return row
      ? {
          accountId: row.account_id,
          plan: row.plan,
          requestsPerMinute: row.requests_per_minute,
          parallelTasks: row.parallel_tasks,
          available: Number(row.available),
          held: Number(row.held),
        }
      : null;
  }

  /** Creates the account with an opening grant; a second call for the same account changes nothing. */
  async openAccount(accountId: string, plan: PlanName, limits: { rpm: number; parallel: number }, credits: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const inserted = await sqlRows<unknown>(tx,
        `INSERT INTO accounts (account_id, plan, requests_per_minute, parallel_tasks, available, held)
         VALUES ($1, $2, $3, $4, $5, 0) ON CONFLICT (account_id) DO NOTHING RETURNING account_id`,
        [accountId, plan, limits.rpm, limits.parallel, credits],
      );
      if (inserted.length === 0) return false;
      if (credits !== 0) await appendLedger(tx, accountId, 'grant', credits, 'opening grant');
      return true;
    });
  }

  /** Operator grant or adjustment (negative allowed down to zero available). */
  async adjust(accountId: string, delta: number, note: string): Promise<number | null> {
    return this.db.transaction(async (tx) => {
      const rows = await sqlRows<{ available: string }>(tx,
        `UPDATE accounts SET available = available + $2, updated_at = now()
         WHERE account_id = $1 AND available + $2 >= 0 RETURNING available`,
        [accountId, delta],
      );
      if (rows.length === 0) return null;
      await appendLedger(tx, accountId, delta >= 0 ? 'grant' : 'adjustment', delta, note);
      return Number(rows[0].available);
    });
  }

  async setPlan(accountId: string, plan: PlanName, rpm: number, parallel: number): Promise<boolean> {
    const result = await this.db
      .getRepository(BillingAccountEntity)
      .update({ accountId }, { plan, requestsPerMinute: rpm, parallelTasks: parallel });
    return (result.affected ?? 0) > 0;
  }
}

/** A grant or adjustment's ledger row (no hold moves, no job), in the transaction that changed the balance. */
async function appendLedger(tx: EntityManager, accountId: string, kind: LedgerKind, availableDelta: number, note: string): Promise<void> {
  await tx.getRepository(LedgerEntryEntity).insert({ accountId, kind, availableDelta, heldDelta: 0, jobId: null, note, modelId: null });
}
