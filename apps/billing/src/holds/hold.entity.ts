import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type HoldStatus = 'held' | 'captured' | 'released';

/** Credits reserved for one job; settled exactly once (captured on success, released on failure). */
@Entity({ name: 'holds' })
export class HoldEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('uuid', { name: 'job_id', unique: true })
  jobId!: string;

  @Column('integer')
  amount!: number;

  /** The model the job was submitted for (null for holds made before it was recorded). */
  @Column('text', { name: 'model_id', nullable: true })
  modelId!: string | null;

  @Column('text')
  status!: HoldStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'settled_at', nullable: true })
  settledAt!: Date | null;
}
