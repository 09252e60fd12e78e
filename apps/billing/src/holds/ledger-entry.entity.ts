import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { LedgerKind } from '@gen/contracts';

export type { LedgerKind } from '@gen/contracts';

/**
 * Append-only. Each row moves credits between "available" and "held" (or in/out of the account):
 * the account's balance columns always equal the sums of these deltas.
 */
@Entity({ name: 'ledger' })
export class LedgerEntryEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' })
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

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
