import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { readRows, readSqlFile } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { BILLING_DB } from '../config/billing.tokens';
import type { LedgerKind } from '../accounts/ledger-entry.entity';

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

const LEDGER_PAGE = readSqlFile(join(__dirname, 'ledger-page.sql'));
const USAGE = readSqlFile(join(__dirname, 'usage.sql'));

/** Reads of the credit ledger: an account's pages, its spending, and the sums the balance must equal. */
@Injectable()
export class LedgerRepository {
  constructor(@Inject(BILLING_DB) private readonly db: DataSource) {}

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
      LEDGER_PAGE,
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
      USAGE,
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
}
