import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { PreparedStatement, readRows, readSqlFile, readSqlStatement, retryTransient, sqlRows } from '@gen/persistence';
import type { GenerationType, JobStatus } from '@gen/contracts';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';
import { JobEntity } from './job.entity';
import { JOB_COLUMN_NAMES, jobFromRow, JobRow } from './job-row';

const findJob = new PreparedStatement<JobRow>('generation.job_by_id', readSqlStatement(join(__dirname, 'job-by-id.sql'), JOB_COLUMN_NAMES), {
  idempotent: true,
});
const findAccountJob = new PreparedStatement<JobRow>(
  'generation.job_of_account',
  readSqlStatement(join(__dirname, 'job-of-account.sql'), JOB_COLUMN_NAMES),
  { idempotent: true },
);
const QUEUE_POSITIONS = readSqlFile(join(__dirname, 'queue-positions.sql'));
const SUBMITTED_JOBS = readSqlStatement(join(__dirname, 'submitted-jobs.sql'), JOB_COLUMN_NAMES);
const OUTPUT_EXPIRED = readSqlFile(join(__dirname, 'output-expired.sql'));

/** A job of an account as it stands, with how many of the account's queued jobs are ahead of it (queued only). */
export interface JobWithPosition {
  job: JobEntity;
  ahead: number | null;
}

/** Reads of jobs: a customer's (always with the account id), and the runtime's by id. */
@Injectable()
export class JobReadsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  async findById(jobId: string): Promise<JobEntity | null> {
    const rows = await findJob.rows(this.db, [jobId]);
    return rows.length === 0 ? null : jobFromRow(rows[0]);
  }

  /** The read path (GET /api/v1/generations/{id}): one prepared statement, no entity metadata. */
  async findForAccount(accountId: string, jobId: string): Promise<JobEntity | null> {
    const rows = await findAccountJob.rows(this.db, [jobId, accountId]);
    return rows.length === 0 ? null : jobFromRow(rows[0]);
  }

  /** Newest first, keyset-paginated on `seq` (stable under concurrent inserts). */
  async listForAccount(
    accountId: string,
    options: { limit: number; beforeSeq?: number; status?: JobStatus; type?: GenerationType },
  ): Promise<JobEntity[]> {
    const query = this.db
      .getRepository(JobEntity)
      .createQueryBuilder('job')
      .where('job.account_id = :accountId', { accountId })
      .orderBy('job.seq', 'DESC')
      .limit(options.limit);
    if (options.beforeSeq !== undefined) query.andWhere('job.seq < :before', { before: options.beforeSeq });
    if (options.status) query.andWhere('job.status = :status', { status: options.status });
    if (options.type) query.andWhere('job.type = :type', { type: options.type });
    // A read: run again after a transient failure (GET /generations during a database restart).
    return retryTransient(() => query.getMany());
  }

  /**
   * For queued jobs of the account (by seq): how many of its queued jobs are ahead of each, in
   * submission order (the order claims take). One index range count per job (jobs_queued).
   */
  async queuePositions(accountId: string, seqs: number[]): Promise<Map<number, number>> {
    if (seqs.length === 0) return new Map();
    const rows = await readRows<{ seq: string; ahead: number }>(this.db, QUEUE_POSITIONS, [accountId, seqs]);
    return new Map(rows.map((r) => [Number(r.seq), r.ahead]));
  }

  /**
   * The read after a submit (`SubmittedJobsReader` gathers them): many just-admitted jobs of any
   * accounts in one statement, one entry per `(accountId, jobId)` pair that exists (a pair of another
   * account finds nothing), with the same position count as `queuePositions`.
   */
  async findManyWithPositions(pairs: ReadonlyArray<{ accountId: string; jobId: string }>): Promise<Map<string, JobWithPosition>> {
    const rows = await readRows<JobRow & { ahead: number | null }>(this.db, SUBMITTED_JOBS, [pairs.map((p) => p.jobId), pairs.map((p) => p.accountId)]);
    return new Map(rows.map((row) => [row.id.toLowerCase(), { job: jobFromRow(row), ahead: row.ahead }]));
  }

  /**
   * Whether an output key belonged to a job whose outputs were deleted at the end of their retention:
   * its first output (`output_key`, index `jobs_output_key`) or a later one (`outputs`, index
   * `jobs_more_outputs`, which holds only the jobs with more than one).
   */
  async outputExpired(outputKey: string): Promise<boolean> {
    const rows = await sqlRows<unknown>(this.db, OUTPUT_EXPIRED, [outputKey]);
    return rows.length > 0;
  }
}
