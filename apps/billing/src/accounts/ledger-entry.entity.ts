import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { LedgerKind } from '@gen/contracts';
import { BillingAccountEntity } from './billing-account.entity';

export type { LedgerKind } from '@gen/contracts';

/**
 * Append-only. Each row moves credits between "available" and "held" (or in/out of the account):
 * the account's balance columns always equal the sums of these deltas.
 * Mirrors migrations 1763700000000 (billing-init) and 1764500000000 (billing-ledger-models), names included.
 */
@Entity({ name: 'ledger' })
@Index('ledger_by_account', ['accountId', 'id'])
@Index('ledger_settlements_by_account_time', ['accountId', 'createdAt'], { where: `"kind" IN ('capture', 'release')` })
@Check('ledger_kind_check', `"kind" IN ('grant','adjustment','hold','capture','release')`)
export class LedgerEntryEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS', primaryKeyConstraintName: 'ledger_pkey' })
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => BillingAccountEntity, { onDelete: 'NO ACTION', onUpdate: 'NO ACTION' })
  @JoinColumn({ name: 'account_id', referencedColumnName: 'accountId', foreignKeyConstraintName: 'ledger_account_id_fkey' })
  account?: BillingAccountEntity;

  @Column('text')
  kind!: LedgerKind;

  @Column('integer', { name: 'available_delta' })
  availableDelta!: number;

  @Column('integer', { name: 'held_delta' })
  heldDelta!: number;

  @Column('uuid', { name: 'job_id', nullable: true })
  jobId!: string | null;

  /** The model of the job (holds, captures, releases), when known; null for grants and older rows. */
  @Column('text', { name: 'model_id', nullable: true })
  modelId!: string | null;

  @Column('text', { nullable: true })
  note!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
