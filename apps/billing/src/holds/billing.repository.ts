import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { BatchQueue, isRefusedValue, PreparedStatement, readRows, retryTransient, sqlRows } from '@gen/persistence';
import type { PlanName } from '@gen/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { BILLING_BATCH_SETTINGS, BILLING_DB } from '../billing.tokens';
import { BillingBatchSettings, DEFAULT_BILLING_BATCH_SETTINGS } from './billing-batch.settings';
import { BillingAccountEntity } from '../accounts/billing-account.entity';
import { HoldEntity } from './hold.entity';
import { LedgerEntryEntity, LedgerKind } from './ledger-entry.entity';

export type ReserveOutcome =
  | { kind: 'reserved'; holdId: string; available: number }
  | { kind: 'already-reserved'; holdId: string; available: number }
  | { kind: 'insufficient'; available: number }
  | { kind: 'cap'; period: 'day' | 'month'; cap: number; spent: number; available: number }
  | { kind: 'no-account' };

export type SettleOutcome = { kind: 'settled'; amount: number } | { kind: 'nothing-to-settle' };

/** A ledger row with the available balance right after it. */
export interface LedgerRow {
  id: string;
  kind: LedgerKind;
  availableDelta: number;
  heldDelta: number;
  jobId: string | null;
  modelId: string | null;
  note: string | null;
  createdAt: Date;
  balanceAfter: number;
}

/**
 * One group of settled credits: a day and a model, a day (model null), a model (day null), or the
 * whole period (both null).
 */
export interface UsageRow {
  day: string | null;
  model: string | null;
  credits: number;
  generations: number;
  refunds: number;
}

/** An account's plan, limits and balance. */
export interface BillingAccount {
  accountId: string;
  plan: PlanName;
  requestsPerMinute: number;
  parallelTasks: number;
  available: number;
  held: number;
}

interface ReserveItem {
  accountId: string;
  jobId: string;
  amount: number;
  minimum: number;
  modelId: string | null;
  keyId: string | null;
}

interface SettleItem {
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
}>(
  'billing.reserve_batch',
  `SELECT o_item, o_outcome, o_hold_id, o_available, o_cap_period, o_cap, o_spent
   FROM reserve_batch($1::uuid[], $2::uuid[], $3::integer[], $4::bigint[], $5::text[], $6::uuid[])`,
);

const SETTLE_BATCH = new PreparedStatement<{ o_item: number; o_amount: number | null }>(
  'billing.settle_batch',
  `SELECT o_item, o_amount FROM settle_batch($1::uuid[], $2::text[], $3::text[])`,
);

const FIND_ACCOUNT = new PreparedStatement<{
  account_id: string;
  plan: PlanName;
  requests_per_minute: number;
  parallel_tasks: number;
  available: string;
  held: string;
}>(
  'billing.find_account',
  `SELECT account_id, plan, requests_per_minute, parallel_tasks, available, held FROM accounts WHERE account_id = $1`,
  { idempotent: true },
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
 * Every query of the billing schema. Balance changes are conditional updates under row locks;
 * reserves and settles are group-committed (BatchQueue): calls that arrive while a batch is being
 * written go together in the next one.
 */
@Injectable()
export class BillingRepository implements OnModuleDestroy {
  private readonly settings: BillingBatchSettings;
  private readonly reserves: BatchQueue<ReserveItem, ReserveOutcome>;
  private readonly settles: BatchQueue<SettleItem, SettleOutcome>;

  constructor(
    @Inject(BILLING_DB) private readonly db: DataSource,
    @Optional() @Inject(BILLING_BATCH_SETTINGS) settings: Partial<BillingBatchSettings> | null = null,
  ) {
    this.settings = { ...DEFAULT_BILLING_BATCH_SETTINGS, ...settings };
    // A batch PostgreSQL refuses for one item's value is run again item by item: only that item fails.
    this.reserves = new BatchQueue((items) => this.reserveBatch(items), { maxBatch: this.settings.reserveBatchMax, isolate: isRefusedValue });
    this.settles = new BatchQueue((items) => this.settleBatch(items), { maxBatch: this.settings.settleBatchMax, isolate: isRefusedValue });
  }

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
      if (credits !== 0) await this.appendLedger(tx, accountId, 'grant', credits, 0, null, 'opening grant');
      return true;
    });
  }

  /**
   * Reserves `amount` for a job if at least `minimum` (and `amount`) is available and the hold keeps
   * the key (`keyId`) within its spending caps. Concurrent calls are applied in batches by
   * `reserve_batch` (migration 1764870000000), one statement per batch, under the account rows'
   * locks, so concurrent reserves can never overdraw nor pass a cap; each call gets its own outcome.
   * Reserving a job that has a hold already changes nothing ('already-reserved').
   */
  reserve(
    accountId: string,
    jobId: string,
    amount: number,
    minimum: number,
    modelId: string | null = null,
    keyId: string | null = null,
  ): Promise<ReserveOutcome> {
    return this.reserves.push({ accountId, jobId, amount, minimum, modelId, keyId });
  }

  /**
   * Captures (success) or releases (failure, the refund) a job's hold, once; later calls change
   * nothing. Concurrent calls are applied in batches by `settle_batch`, one statement per batch.
   */
  settle(jobId: string, outcome: 'capture' | 'release', note: string | null): Promise<SettleOutcome> {
    return this.settles.push({ jobId, outcome, note });
  }

  /** Waits for every queued reserve and settle to be applied (before the DataSource closes). */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.reserves.drain(), this.settles.drain()]);
  }

  private async reserveBatch(items: readonly ReserveItem[]): Promise<ReserveOutcome[]> {
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
      { attempts: this.settings.conflictAttempts },
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

  private async settleBatch(items: readonly SettleItem[]): Promise<SettleOutcome[]> {
    const rows = await retryTransient(
      () =>
        SETTLE_BATCH.rows(this.db, [items.map((i) => i.jobId), items.map((i) => i.outcome), items.map((i) => i.note)]),
      // Keyed by job id: a run repeated after a lost connection changes nothing the first one did.
      { attempts: this.settings.conflictAttempts },
    );
    return inItemOrder(rows, items.length, (row): SettleOutcome =>
      row.o_amount === null ? { kind: 'nothing-to-settle' } : { kind: 'settled', amount: row.o_amount },
    );
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
    return retryTransient(() => this.db.getRepository(HoldEntity).findOneBy({ jobId }));
  }

  /**
   * A page of one account's ledger, newest first: rows with an id below `beforeId` (all when null),
   * `limit` of them, each with the available balance right after it.
   *
   * Every ledger row of an account is inserted while its transaction holds the account row's lock
   * (after the `UPDATE accounts`, or with the account's own INSERT), so one account's ids increase in
   * commit order, and the account's `available` always equals the sum of its rows' `available_delta`.
   * In one statement (one snapshot), the balance after row r is therefore `available` minus what the
   * rows after r moved: the rows newer than the page (none for the first page, so a recent page
   * costs its own rows) and the page's rows before r.
   */
  async ledgerPage(accountId: string, limit: number, beforeId: string | null): Promise<LedgerRow[]> {
    const rows = await readRows<{
      id: string;
      kind: LedgerKind;
      available_delta: number;
      held_delta: number;
      job_id: string | null;
      model_id: string | null;
      note: string | null;
      created_at: Date;
      balance_after: string;
    }>(
      this.db,
      `WITH page AS (
         SELECT id, kind, available_delta, held_delta, job_id, model_id, note, created_at
         FROM ledger WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
         ORDER BY id DESC LIMIT $3
       ), newer AS (
         SELECT coalesce(sum(available_delta), 0) AS delta FROM ledger
         WHERE account_id = $1 AND id > (SELECT max(id) FROM page)
       )
       SELECT p.*, a.available - n.delta
                   - coalesce(sum(p.available_delta) OVER (ORDER BY p.id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                   AS balance_after
       FROM page p CROSS JOIN newer n JOIN accounts a ON a.account_id = $1
       ORDER BY p.id DESC`,
      [accountId, beforeId, limit],
    );
    return rows.map((r) => ({
      id: String(r.id),
      kind: r.kind,
      availableDelta: Number(r.available_delta),
      heldDelta: Number(r.held_delta),
      jobId: r.job_id,
      modelId: r.model_id,
      note: r.note,
      createdAt: r.created_at,
      balanceAfter: Number(r.balance_after),
    }));
  }

  /**
   * Credits captured (spent) and generations charged per UTC day and model over the last `days`
   * days (today included), with the totals per day, per model and overall (GROUPING SETS), and the
   * refunds (releases) of the period. Days without spending have no row. A generation counts on the
   * day its credits were captured (UTC).
   */
  async usage(accountId: string, days: number): Promise<{ from: string; to: string; rows: UsageRow[] }> {
    const rows = await readRows<{
      day: string | null;
      model: string | null;
      credits: string;
      generations: number;
      refunds: number;
      by_day: number;
      by_model: number;
      from_day: string;
      to_day: string;
    }>(
      this.db,
      `WITH period AS (
         SELECT (now() AT TIME ZONE 'UTC')::date - ($2::int - 1) AS first_day, (now() AT TIME ZONE 'UTC')::date AS last_day
       ), settled AS (
         SELECT to_char((l.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, coalesce(l.model_id, 'unknown') AS model,
                l.kind, -l.held_delta AS amount
         FROM ledger l, period
         WHERE l.account_id = $1 AND l.kind IN ('capture', 'release')
           AND l.created_at >= period.first_day::timestamp AT TIME ZONE 'UTC'
       )
       SELECT s.day, s.model,
              coalesce(sum(s.amount) FILTER (WHERE s.kind = 'capture'), 0)::bigint AS credits,
              count(*) FILTER (WHERE s.kind = 'capture')::int AS generations,
              count(*) FILTER (WHERE s.kind = 'release')::int AS refunds,
              GROUPING(s.day)::int AS by_model, GROUPING(s.model)::int AS by_day,
              to_char((SELECT first_day FROM period), 'YYYY-MM-DD') AS from_day,
              to_char((SELECT last_day FROM period), 'YYYY-MM-DD') AS to_day
       FROM settled s
       GROUP BY GROUPING SETS ((s.day, s.model), (s.day), (s.model), ())`,
      [accountId, days],
    );
    // The empty grouping set always yields one row (the period's totals), even with no spending.
    return {
      from: rows[0].from_day,
      to: rows[0].to_day,
      rows: rows.map((r) => ({
        day: r.by_model === 1 ? null : r.day,
        model: r.by_day === 1 ? null : r.model,
        credits: Number(r.credits),
        generations: Number(r.generations),
        refunds: Number(r.refunds),
      })),
    };
  }

  /** Sums of the ledger, to check against the balance columns. */
  async ledgerTotals(accountId: string): Promise<{ available: number; held: number }> {
    const rows = await readRows<{ available: string | null; held: string | null }>(this.db, 
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
    modelId: string | null = null,
  ): Promise<void> {
    await tx.getRepository(LedgerEntryEntity).insert({ accountId, kind, availableDelta, heldDelta, jobId, note, modelId });
  }
}
