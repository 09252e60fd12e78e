import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { PlanName } from '@gen/contracts';

const bigintAsNumber = { to: (v: number) => v, from: (v: string) => Number(v) };

/**
 * An account's plan, limits and balance. `available + held` is what the ledger sums to.
 * Mirrors migrations 1763700000000 (billing-init) and 1764980000000 (low-balance), constraint names
 * included. The trigger `accounts_low_balance` (1764980000000) keeps `lowBalanceAlerted`.
 */
@Entity({ name: 'accounts' })
@Check('accounts_plan_check', `"plan" IN ('free','lite','pro','enterprise')`)
@Check('accounts_requests_per_minute_check', `"requests_per_minute" > 0`)
@Check('accounts_parallel_tasks_check', `"parallel_tasks" > 0`)
@Check('accounts_available_check', `"available" >= 0`)
@Check('accounts_held_check', `"held" >= 0`)
@Check('accounts_low_balance_threshold_check', `"low_balance_threshold" > 0`)
export class BillingAccountEntity {
  @PrimaryColumn('uuid', { name: 'account_id', primaryKeyConstraintName: 'accounts_pkey' })
  accountId!: string;

  @Column('text')
  plan!: PlanName;

  @Column('integer', { name: 'requests_per_minute' })
  requestsPerMinute!: number;

  @Column('integer', { name: 'parallel_tasks' })
  parallelTasks!: number;

  /** Credits free to spend. Never negative (CHECK constraint). */
  @Column('bigint', { default: 0, transformer: bigintAsNumber })
  available!: number;

  /** Credits reserved by running jobs. */
  @Column('bigint', { default: 0, transformer: bigintAsNumber })
  held!: number;

  /** Alert when `available` falls below this many credits; null: no alerts. */
  @Column('integer', { name: 'low_balance_threshold', nullable: true })
  lowBalanceThreshold!: number | null;

  /** The current crossing below the threshold has been alerted; cleared when `available` is back at or above it. */
  @Column('boolean', { name: 'low_balance_alerted', default: false })
  lowBalanceAlerted!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
