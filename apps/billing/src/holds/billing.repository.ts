import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import type { PlanName } from '@gen/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { BILLING_DB } from '../billing.tokens';
import { BillingAccountEntity } from '../accounts/billing-account.entity';
import { HoldEntity } from './hold.entity';
import { LedgerEntryEntity, LedgerKind } from './ledger-entry.entity';

export type ReserveOutcome =
  | { kind: 'reserved'; holdId: string; available: number }
  | { kind: 'already-reserved'; holdId: string; available: number }
  | { kind: 'insufficient'; available: number }
  | { kind: 'no-account' };

export type SettleOutcome = { kind: 'settled'; amount: number } | { kind: 'nothing-to-settle' };

class NotEnoughCredits extends Error {
  constructor(readonly available: number) {
    super('not enough credits');
  }
}

/** Every query of the billing schema. Balance changes are conditional updates under row locks. */
@Injectable()
export class BillingRepository {
  constructor(@Inject(BILLING_DB) private readonly db: DataSource) {}

  findAccount(accountId: string): Promise<BillingAccountEntity | null> {
    return this.db.getRepository(BillingAccountEntity).findOneBy({ accountId });
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
      if (credits !== 0) await this.appendLedger(tx, accountId, 'grant', credits, 0, null, 'opening grant');
      return true;
    });
  }

  /**
   * Reserves `amount` for a job if at least `minimum` (and `amount`) is available. One statement
   * decides, under the account row's lock, so concurrent reserves can never overdraw.
   */
  async reserve(accountId: string, jobId: string, amount: number, minimum: number): Promise<ReserveOutcome> {
    try {
      return await this.db.transaction(async (tx) => {
        // The hold goes in first: a concurrent reserve of the same job waits on its unique key here.
        const hold = await sqlRows<{ id: string }>(
          tx,
          `INSERT INTO holds (account_id, job_id, amount, status)
           SELECT $1, $2, $3, 'held' WHERE EXISTS (SELECT 1 FROM accounts WHERE account_id = $1)
           ON CONFLICT (job_id) DO NOTHING RETURNING id`,
          [accountId, jobId, amount],
        );
        if (hold.length === 0) {
          const existing = await tx.getRepository(HoldEntity).findOneBy({ jobId });
          const account = await tx.getRepository(BillingAccountEntity).findOneBy({ accountId });
          if (!existing || !account) return { kind: 'no-account' } as const;
          return { kind: 'already-reserved', holdId: existing.id, available: account.available } as const;
        }
        const updated = await sqlRows<{ available: string }>(
          tx,
          `UPDATE accounts SET available = available - $2, held = held + $2, updated_at = now()
           WHERE account_id = $1 AND available >= GREATEST($2::bigint, $3::bigint)
           RETURNING available`,
          [accountId, amount, minimum],
        );
        if (updated.length === 0) {
          const account = await tx.getRepository(BillingAccountEntity).findOneBy({ accountId });
          throw new NotEnoughCredits(account?.available ?? 0); // rolls the hold back
        }
        await this.appendLedger(tx, accountId, 'hold', -amount, amount, jobId, null);
        return { kind: 'reserved', holdId: hold[0].id, available: Number(updated[0].available) } as const;
      });
    } catch (error) {
      if (error instanceof NotEnoughCredits) return { kind: 'insufficient', available: error.available };
      throw error;
    }
  }

  /** Captures (success) or releases (failure, the refund) a job's hold, once; later calls change nothing. */
  async settle(jobId: string, outcome: 'capture' | 'release', note: string | null): Promise<SettleOutcome> {
    return this.db.transaction(async (tx) => {
      const rows = await sqlRows<{ account_id: string; amount: number }>(tx, 
        `UPDATE holds SET status = $2, settled_at = now() WHERE job_id = $1 AND status = 'held'
         RETURNING account_id, amount`,
        [jobId, outcome === 'capture' ? 'captured' : 'released'],
      );
      if (rows.length === 0) return { kind: 'nothing-to-settle' };
      const { account_id: accountId, amount } = rows[0];
      const availableDelta = outcome === 'capture' ? 0 : amount;
      await tx.query(
        `UPDATE accounts SET available = available + $2, held = held - $3, updated_at = now() WHERE account_id = $1`,
        [accountId, availableDelta, amount],
      );
      await this.appendLedger(tx, accountId, outcome, availableDelta, -amount, jobId, note);
      return { kind: 'settled', amount };
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
      await this.appendLedger(tx, accountId, delta >= 0 ? 'grant' : 'adjustment', delta, 0, null, note);
      return Number(rows[0].available);
    });
  }

  async setPlan(accountId: string, plan: PlanName, rpm: number, parallel: number): Promise<boolean> {
    const result = await this.db
      .getRepository(BillingAccountEntity)
      .update({ accountId }, { plan, requestsPerMinute: rpm, parallelTasks: parallel });
    return (result.affected ?? 0) > 0;
  }

  findHold(jobId: string): Promise<HoldEntity | null> {
    return this.db.getRepository(HoldEntity).findOneBy({ jobId });
  }

  /** Sums of the ledger, to check against the balance columns. */
  async ledgerTotals(accountId: string): Promise<{ available: number; held: number }> {
    const rows = await sqlRows<{ available: string | null; held: string | null }>(this.db, 
      `SELECT sum(available_delta) AS available, sum(held_delta) AS held FROM ledger WHERE account_id = $1`,
      [accountId],
    );
    return { available: Number(rows[0]?.available ?? 0), held: Number(rows[0]?.held ?? 0) };
  }

  private async appendLedger(
    tx: EntityManager,
    accountId: string,
    kind: LedgerKind,
    availableDelta: number,
    heldDelta: number,
    jobId: string | null,
    note: string | null,
  ): Promise<void> {
    await tx.getRepository(LedgerEntryEntity).insert({ accountId, kind, availableDelta, heldDelta, jobId, note });
  }
}
