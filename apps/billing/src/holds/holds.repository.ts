import { join } from 'node:path';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { PreparedStatement, readSqlFile, retryTransient } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { BILLING_BATCH_SETTINGS, BILLING_DB } from '../config/billing.tokens';
import { BillingBatchSettings, DEFAULT_BILLING_BATCH_SETTINGS } from './billing-batch.settings';
import { HoldEntity } from './hold.entity';

export type ReserveOutcome =
  | { kind: 'reserved'; holdId: string; available: number }
  | { kind: 'already-reserved'; holdId: string; available: number }
  | { kind: 'insufficient'; available: number }
  | { kind: 'cap'; period: 'day' | 'month'; cap: number; spent: number; available: number }
  | { kind: 'no-account' };

export type SettleOutcome = { kind: 'settled'; amount: number } | { kind: 'nothing-to-settle' };

export interface ReserveItem {
  accountId: string;
  jobId: string;
  amount: number;
  minimum: number;
  modelId: string | null;
  keyId: string | null;
}

export interface SettleItem {
  jobId: string;
  outcome: 'capture' | 'release';
  note: string | null;
}

// The hot statements, prepared once per connection. Each batch function runs as one statement: one
// transaction, one commit for the whole batch (autocommit).
const RESERVE_BATCH = new PreparedStatement<{
  o_item: number;
  o_outcome: 'reserved' | 'already-reserved' | 'insufficient' | 'cap' | 'no-account';
  o_hold_id: string | null;
  o_available: string | null;
  o_cap_period: 'day' | 'month' | null;
  o_cap: string | null;
  o_spent: string | null;
}>('billing.reserve_batch', readSqlFile(join(__dirname, 'reserve-batch.sql')));

const SETTLE_BATCH = new PreparedStatement<{ o_item: number; o_amount: number | null }>(
  'billing.settle_batch',
  readSqlFile(join(__dirname, 'settle-batch.sql')),
);

/** A batch function's rows (o_item counts from 1) as one result per item, in item order. */
function inItemOrder<R extends { o_item: number }, T>(rows: R[], count: number, map: (row: R) => T): T[] {
  const results = new Array<T>(count);
  for (const row of rows) results[row.o_item - 1] = map(row);
  if (rows.length !== count || results.some((r) => r === undefined)) {
    throw new Error(`a billing batch of ${count} items returned ${rows.length} rows`);
  }
  return results;
}

/**
 * Holds: batches of reserves and settles, each applied by one statement (reserve-batch.function.sql,
 * settle-batch.function.sql) under the account rows' locks, so concurrent batches on any number of
 * replicas can never overdraw nor pass a cap. HoldsWriter gathers the batches.
 */
@Injectable()
export class HoldsRepository {
  private readonly conflictAttempts: number;

  constructor(
    @Inject(BILLING_DB) private readonly db: DataSource,
    @Optional() @Inject(BILLING_BATCH_SETTINGS) settings: Partial<BillingBatchSettings> | null = null,
  ) {
    this.conflictAttempts = { ...DEFAULT_BILLING_BATCH_SETTINGS, ...settings }.conflictAttempts;
  }

  /** One outcome per item, in order; reserving a job that has a hold already changes nothing ('already-reserved'). */
  async reserveBatch(items: readonly ReserveItem[]): Promise<ReserveOutcome[]> {
    const rows = await retryTransient(
      () =>
        RESERVE_BATCH.rows(this.db, [
          items.map((i) => i.accountId),
          items.map((i) => i.jobId),
          items.map((i) => i.amount),
          items.map((i) => i.minimum),
          items.map((i) => i.modelId),
          items.map((i) => i.keyId),
        ]),
      // Keyed by job id: a run repeated after a lost connection changes nothing the first one did.
      { attempts: this.conflictAttempts },
    );
    return inItemOrder(rows, items.length, (row): ReserveOutcome => {
      switch (row.o_outcome) {
        case 'reserved':
        case 'already-reserved':
          return { kind: row.o_outcome, holdId: row.o_hold_id as string, available: Number(row.o_available) };
        case 'insufficient':
          return { kind: 'insufficient', available: Number(row.o_available) };
        case 'cap':
          return {
            kind: 'cap',
            period: row.o_cap_period as 'day' | 'month',
            cap: Number(row.o_cap),
            spent: Number(row.o_spent),
            available: Number(row.o_available),
          };
        case 'no-account':
          return { kind: 'no-account' };
      }
    });
  }

  /** One outcome per item, in order: a hold is captured or released once; later settles find nothing. */
  async settleBatch(items: readonly SettleItem[]): Promise<SettleOutcome[]> {
    const rows = await retryTransient(
      () => SETTLE_BATCH.rows(this.db, [items.map((i) => i.jobId), items.map((i) => i.outcome), items.map((i) => i.note)]),
      // Keyed by job id: a run repeated after a lost connection changes nothing the first one did.
      { attempts: this.conflictAttempts },
    );
    return inItemOrder(rows, items.length, (row): SettleOutcome =>
      row.o_amount === null ? { kind: 'nothing-to-settle' } : { kind: 'settled', amount: row.o_amount },
    );
  }

  findHold(jobId: string): Promise<HoldEntity | null> {
    return retryTransient(() => this.db.getRepository(HoldEntity).findOneBy({ jobId }));
  }
}
