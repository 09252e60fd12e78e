import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { PlanName } from '@gen/contracts';

/** An account's plan, limits and balance. `available + held` is what the ledger sums to. */
@Entity({ name: 'accounts' })
export class BillingAccountEntity {
  @PrimaryColumn('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text')
  plan!: PlanName;

  @Column('integer', { name: 'requests_per_minute' })
  requestsPerMinute!: number;

  @Column('integer', { name: 'parallel_tasks' })
  parallelTasks!: number;

  /** Credits free to spend. Never negative (CHECK constraint). */
  @Column('bigint', { transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  available!: number;

  /** Credits reserved by running jobs. */
  @Column('bigint', { transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  held!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
