import { Inject, Injectable } from '@nestjs/common';
import type { PlanName, SubscriptionView } from '@gen/contracts';
import { readRows, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { BILLING_DB } from '../config/billing.tokens';
import { BillingNotice, claimEvent, StripeEventRecord, writeNotice } from './payment-records';

/** An account's subscription as billing keeps it (`subscriptions`). */
export interface SubscriptionRow {
  accountId: string;
  subscriptionId: string;
  status: string;
  plan: PlanName;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  downgradeAt: Date | null;
  graceUntil: Date | null;
}

/** What one change does: the row to keep (null: leave it), the account's new plan and limits, a notice. */
export interface SubscriptionTransition {
  row: SubscriptionRow | null;
  plan?: { plan: PlanName; rpm: number; parallel: number };
  notice?: BillingNotice;
}

export type TransitionOutcome = 'applied' | 'duplicate' | 'unchanged' | 'no-account';

interface Row {
  account_id: string;
  subscription_id: string;
  status: string;
  plan: PlanName;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  downgrade_at: Date | null;
  grace_until: Date | null;
}

const toRow = (r: Row): SubscriptionRow => ({
  accountId: r.account_id,
  subscriptionId: r.subscription_id,
  status: r.status,
  plan: r.plan,
  currentPeriodEnd: r.current_period_end,
  cancelAtPeriodEnd: r.cancel_at_period_end,
  downgradeAt: r.downgrade_at,
  graceUntil: r.grace_until,
});

/** The row as the Billing page and `accounts show` show it. */
export function toSubscriptionView(row: SubscriptionRow): SubscriptionView {
  return {
    subscription_id: row.subscriptionId,
    status: row.status,
    plan: row.plan,
    current_period_end: row.currentPeriodEnd?.toISOString() ?? null,
    cancel_at_period_end: row.cancelAtPeriodEnd,
    downgrade_at: row.downgradeAt?.toISOString() ?? null,
    grace_until: row.graceUntil?.toISOString() ?? null,
  };
}

const time = (d: Date | null) => d?.getTime() ?? null;

function sameRow(a: SubscriptionRow, b: SubscriptionRow): boolean {
  return (
    a.subscriptionId === b.subscriptionId && a.status === b.status && a.plan === b.plan && a.cancelAtPeriodEnd === b.cancelAtPeriodEnd &&
    time(a.currentPeriodEnd) === time(b.currentPeriodEnd) && time(a.downgradeAt) === time(b.downgradeAt) && time(a.graceUntil) === time(b.graceUntil)
  );
}

const COLUMNS = 'account_id, subscription_id, status, plan, current_period_end, cancel_at_period_end, downgrade_at, grace_until';

/**
 * Plan prices and subscriptions (migration 1766000000001). Every change of a subscription, the
 * account's plan that follows from it and its notice are one transaction that holds the account row's
 * lock, so two events of one account (or an event and the sweep) apply one after the other, each
 * seeing what the other wrote.
 */
@Injectable()
export class SubscriptionsRepository {
  constructor(@Inject(BILLING_DB) private readonly db: DataSource) {}

  async planPrices(): Promise<Array<{ plan: PlanName; priceId: string }>> {
    const rows = await readRows<{ plan: PlanName; price_id: string }>(this.db, `SELECT plan, price_id FROM plan_prices ORDER BY plan`);
    return rows.map((r) => ({ plan: r.plan, priceId: r.price_id }));
  }

  /** The operator's mapping; a price already mapped to another plan moves to this one (last writer wins). */
  async setPlanPrice(plan: PlanName, priceId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await sqlRows(tx, `DELETE FROM plan_prices WHERE price_id = $1 AND plan <> $2`, [priceId, plan]);
      await sqlRows(tx,
        `INSERT INTO plan_prices (plan, price_id) VALUES ($1, $2) ON CONFLICT (plan) DO UPDATE SET price_id = EXCLUDED.price_id, updated_at = now()`,
        [plan, priceId],
      );
    });
  }

  async subscriptionOf(accountId: string): Promise<SubscriptionRow | null> {
    const [row] = await readRows<Row>(this.db, `SELECT ${COLUMNS} FROM subscriptions WHERE account_id = $1`, [accountId]);
    return row ? toRow(row) : null;
  }

  async accountOfSubscription(subscriptionId: string): Promise<string | null> {
    const [row] = await readRows<{ account_id: string }>(this.db, `SELECT account_id FROM subscriptions WHERE subscription_id = $1`, [subscriptionId]);
    return row?.account_id ?? null;
  }

  /** Accounts whose downgrade or grace ended by `now` (the sweep). */
  async due(now: Date): Promise<string[]> {
    const rows = await readRows<{ account_id: string }>(this.db,
      `SELECT account_id FROM subscriptions WHERE downgrade_at <= $1 OR grace_until <= $1 ORDER BY account_id LIMIT 500`,
      [now],
    );
    return rows.map((r) => r.account_id);
  }

  /**
   * One change of an account's subscription: `decide` sees the account's plan and the row as they
   * are under the account row's lock and says what to write. With an event, the event's row is
   * claimed first in the same transaction (a repeat is a duplicate and writes nothing).
   */
  async transition(
    event: StripeEventRecord | null,
    accountId: string,
    decide: (current: { plan: PlanName; row: SubscriptionRow | null }) => SubscriptionTransition | null,
  ): Promise<TransitionOutcome> {
    return this.db.transaction(async (tx) => {
      if (event && !(await claimEvent(tx, event))) return 'duplicate';
      const [account] = await sqlRows<{ plan: PlanName }>(tx, `SELECT plan FROM accounts WHERE account_id = $1 FOR UPDATE`, [accountId]);
      if (!account) return 'no-account';
      const [existing] = await sqlRows<Row>(tx, `SELECT ${COLUMNS} FROM subscriptions WHERE account_id = $1`, [accountId]);
      const current = existing ? toRow(existing) : null;
      const change = decide({ plan: account.plan, row: current });
      // Nothing that differs from what is stored (an event about a change applied already): unchanged.
      const same = !change || (!change.notice && (!change.plan || change.plan.plan === account.plan) && (!change.row || (current !== null && sameRow(current, change.row))));
      if (!change || same) {
        if (event) await sqlRows(tx, `UPDATE stripe_events SET outcome = 'ignored: nothing to change' WHERE event_id = $1`, [event.eventId]);
        return 'unchanged';
      }
      if (change.row) {
        const r = change.row;
        // A subscription that replaces the account's previous one (a new checkout after a cancel) takes its row.
        await sqlRows(tx,
          `INSERT INTO subscriptions (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (account_id) DO UPDATE SET subscription_id = EXCLUDED.subscription_id, status = EXCLUDED.status, plan = EXCLUDED.plan,
             current_period_end = EXCLUDED.current_period_end, cancel_at_period_end = EXCLUDED.cancel_at_period_end,
             downgrade_at = EXCLUDED.downgrade_at, grace_until = EXCLUDED.grace_until, updated_at = now()`,
          [accountId, r.subscriptionId, r.status, r.plan, r.currentPeriodEnd, r.cancelAtPeriodEnd, r.downgradeAt, r.graceUntil],
        );
      }
      if (change.plan && change.plan.plan !== account.plan) {
        // As `plans set` writes it (BillingAccountsRepository.setPlan): the trigger announces it to the gateways at commit.
        await sqlRows(tx,
          `UPDATE accounts SET plan = $2, requests_per_minute = $3, parallel_tasks = $4, updated_at = now() WHERE account_id = $1`,
          [accountId, change.plan.plan, change.plan.rpm, change.plan.parallel],
        );
      }
      if (change.notice) await writeNotice(tx, accountId, change.notice);
      return 'applied';
    });
  }
}
