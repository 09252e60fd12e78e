import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { BillingAccountEntity } from '../accounts/billing-account.entity';

export type HoldStatus = 'held' | 'captured' | 'released';

/**
 * Credits reserved for one job; settled exactly once (captured on success, released on failure).
 * Mirrors migrations 1763700000000 (billing-init), 1764500000000 (billing-ledger-models) and 1764870000000
 * (billing-key-caps), names included.
 */
@Entity({ name: 'holds' })
@Unique('holds_job_id_key', ['jobId'])
@Index('holds_open_by_account', ['accountId'], { where: `"status" = 'held'` })
@Check('holds_amount_check', `"amount" >= 0`)
@Check('holds_status_check', `"status" IN ('held','captured','released')`)
export class HoldEntity {
  /** The database's default, `gen_random_uuid()` (TypeORM would write `uuid_generate_v4()` but does not compare the two). */
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'holds_pkey' })
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @ManyToOne(() => BillingAccountEntity, { onDelete: 'NO ACTION', onUpdate: 'NO ACTION' })
  @JoinColumn({ name: 'account_id', referencedColumnName: 'accountId', foreignKeyConstraintName: 'holds_account_id_fkey' })
  account?: BillingAccountEntity;

  @Column('uuid', { name: 'job_id' })
  jobId!: string;

  @Column('integer')
  amount!: number;

  /** The model the job was submitted for (null for holds made before it was recorded). */
  @Column('text', { name: 'model_id', nullable: true })
  modelId!: string | null;

  /** The API key the job was submitted with (null for holds made before it was recorded). */
  @Column('uuid', { name: 'api_key_id', nullable: true })
  apiKeyId!: string | null;

  @Column('text')
  status!: HoldStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'settled_at', nullable: true })
  settledAt!: Date | null;
}
