import { Check, Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import type { GenerationType, JobStatus } from '@gen/contracts';

const bigintAsNumber = { to: (v: number) => v, from: (v: string) => Number(v) };

/** One output of a completed job, as the `outputs` column holds it (snake_case: close to the wire form). */
export interface JobOutput {
  /** The storage key (`ab/<32 hex>.png`): `{cdn_url}/<key>` is its URL. */
  key: string;
  content_type: string;
  /** Size in bytes; null for jobs completed before outputs were listed. */
  bytes: number | null;
  width?: number;
  height?: number;
  duration_s?: number;
}

/**
 * A generation job. Its status moves queued -> processing -> completed | failed, guarded in SQL.
 * Mirrors migrations 1763700000000 (generation-init), 1764300000000 (-models), 1764400000000 (-job-control) and
 * 1764810000000 (-parked-jobs) and 1764830000000 (-inputs-outputs), names included.
 */
@Entity({ name: 'jobs' })
@Unique('jobs_seq_key', ['seq'])
// ("account_id", "seq" DESC) in the migration: TypeORM cannot declare a column's order, so it is told to leave this one alone.
@Index('jobs_by_account', { synchronize: false })
@Index('jobs_queued', ['accountId', 'seq'], { where: `"status" = 'queued'` })
@Index('jobs_processing', ['accountId'], { where: `"status" = 'processing'` })
@Index('jobs_lease', ['leaseExpiresAt'], { where: `"status" = 'processing'` })
@Index('jobs_deadline', ['deadlineAt'], { where: `"status" IN ('queued', 'processing') AND "deadline_at" IS NOT NULL` })
@Index('jobs_output_expiry', ['outputExpiresAt'], { where: `"status" = 'completed' AND "output_deleted_at" IS NULL` })
@Index('jobs_output_key', ['outputKey'], { where: `"output_key" IS NOT NULL` })
@Index('jobs_parked', ['nextCheckAt'], { where: `"status" = 'processing' AND "next_check_at" IS NOT NULL` })
// GIN (jsonb_path_ops) over `outputs`, jobs with more than one only (migration 1764830000000): TypeORM cannot declare it.
@Index('jobs_more_outputs', { synchronize: false })
@Check('jobs_type_check', `"type" IN ('TEXT_TO_IMAGE','TEXT_TO_VIDEO','TEXT_TO_AUDIO','TEXT_TO_3D')`)
@Check('jobs_status_check', `"status" IN ('queued','processing','completed','failed')`)
@Check('jobs_credits_check', `"credits" >= 0`)
@Check('jobs_parallel_limit_check', `"parallel_limit" > 0`)
@Check('jobs_final_has_completed_at', `("status" IN ('completed','failed')) = ("completed_at" IS NOT NULL)`)
@Check('jobs_completed_has_output', `"status" <> 'completed' OR "output_key" IS NOT NULL`)
@Check('jobs_progress_check', `"progress" BETWEEN 0 AND 1`)
@Check('jobs_canceled_is_failed', `"canceled_at" IS NULL OR "status" = 'failed'`)
@Check('jobs_input_object', `jsonb_typeof("input") = 'object'`)
@Check('jobs_metadata_object', `jsonb_typeof("metadata") = 'object'`)
@Check('jobs_outputs_array', `jsonb_typeof("outputs") = 'array'`)
export class JobEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'jobs_pkey' })
  id!: string;

  /** Submission order (ties on created_at are common under load). An identity: never written. */
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', insert: false, update: false, transformer: bigintAsNumber })
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

  /** The customer's `input` as applied at submit (validated against the model's schema, defaults filled in). */
  @Column('jsonb', { default: () => "'{}'" })
  input!: Record<string, unknown>;

  /** The customer's own string keys and values, opaque. */
  @Column('jsonb', { default: () => "'{}'" })
  metadata!: Record<string, string>;

  /** Every output of a completed job, in order; `outputKey`/`outputContentType` are the first one's. */
  @Column('jsonb', { default: () => "'[]'" })
  outputs!: JobOutput[];

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

  /** A parked provider job (no lease): when the poll scheduler next reads its upstream state. */
  @Column('timestamptz', { name: 'next_check_at', nullable: true })
  nextCheckAt!: Date | null;

  /** Reads of the upstream job's state so far (the cadence slows down with them). */
  @Column('integer', { name: 'upstream_checks', default: 0 })
  upstreamChecks!: number;

  /** When the upstream job was created. */
  @Column('timestamptz', { name: 'upstream_at', nullable: true })
  upstreamAt!: Date | null;

  /** The binding's total timeout for the upstream job: failed and refunded if not ended by then. */
  @Column('timestamptz', { name: 'upstream_deadline_at', nullable: true })
  upstreamDeadlineAt!: Date | null;

  /** A parked job's place in its provider's queue, as its last check read it (fal's `queue_position`); null where none. */
  @Column('integer', { name: 'upstream_queue_position', nullable: true })
  upstreamQueuePosition!: number | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'started_at', nullable: true })
  startedAt!: Date | null;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt!: Date | null;
}
