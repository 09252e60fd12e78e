import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GenerationType, JobStatus } from '@gen/contracts';

const bigintAsNumber = { to: (v: number) => v, from: (v: string) => Number(v) };

/** A generation job. Its status moves queued -> processing -> completed | failed, guarded in SQL. */
@Entity({ name: 'jobs' })
export class JobEntity {
  @PrimaryColumn('uuid')
  id!: string;

  /** Submission order (ties on created_at are common under load). */
  @Column({ type: 'bigint', insert: false, update: false, transformer: bigintAsNumber })
  seq!: number;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('uuid', { name: 'api_key_id' })
  apiKeyId!: string;

  @Column('text', { name: 'model_id' })
  modelId!: string;

  @Column('text')
  type!: GenerationType;

  @Column('text')
  prompt!: string;

  @Column('text')
  status!: JobStatus;

  @Column('integer')
  credits!: number;

  @Column('integer', { name: 'parallel_limit' })
  parallelLimit!: number;

  @Column('text', { name: 'webhook_url', nullable: true })
  webhookUrl!: string | null;

  @Column('text', { name: 'output_key', nullable: true })
  outputKey!: string | null;

  @Column('text', { name: 'output_content_type', nullable: true })
  outputContentType!: string | null;

  @Column('text', { nullable: true })
  error!: string | null;

  @Column('integer', { default: 0 })
  attempts!: number;

  @Column('text', { name: 'lease_owner', nullable: true })
  leaseOwner!: string | null;

  @Column('timestamptz', { name: 'lease_expires_at', nullable: true })
  leaseExpiresAt!: Date | null;

  /** The upstream job this job was submitted as (provider adapters), stored before waiting on it. */
  @Column('text', { name: 'upstream_ref', nullable: true })
  upstreamRef!: string | null;

  /** Set when the job was canceled (it is then `failed`, refunded). */
  @Column('timestamptz', { name: 'canceled_at', nullable: true })
  canceledAt!: Date | null;

  /** `Cancel-After`: canceled if not finished by then. */
  @Column('timestamptz', { name: 'deadline_at', nullable: true })
  deadlineAt!: Date | null;

  /** 0..1 as the engine reports it while processing. */
  @Column('real', { nullable: true })
  progress!: number | null;

  @Column('timestamptz', { name: 'output_expires_at', nullable: true })
  outputExpiresAt!: Date | null;

  /** When the retention janitor deleted the output file. */
  @Column('timestamptz', { name: 'output_deleted_at', nullable: true })
  outputDeletedAt!: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'started_at', nullable: true })
  startedAt!: Date | null;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt!: Date | null;
}
