import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { readRows, readSqlStatement } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../generation.tokens';
import type { JobEntity } from './job.entity';
import { JOB_COLUMN_NAMES, jobFromRow, JobRow } from './job-row';

/** A job of an account as it stands, with how many of the account's queued jobs are ahead of it (queued only). */
export interface JobWithPosition {
  job: JobEntity;
  ahead: number | null;
}

const SUBMITTED_JOBS = readSqlStatement(join(__dirname, 'submitted-jobs.sql'), JOB_COLUMN_NAMES);

/** The read after a submit: many just-admitted jobs (of any accounts) in one statement. */
@Injectable()
export class SubmittedJobsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /**
   * One entry per `(accountId, jobId)` pair that exists (a pair of another account finds nothing).
   * The position is the same index range count as `JobReadsRepository.queuePositions`. A plain read:
   * retried through a database blip.
   */
  async find(pairs: ReadonlyArray<{ accountId: string; jobId: string }>): Promise<Map<string, JobWithPosition>> {
    const rows = await readRows<JobRow & { ahead: number | null }>(this.db, SUBMITTED_JOBS,
      [pairs.map((p) => p.jobId), pairs.map((p) => p.accountId)],
    );
    return new Map(rows.map((row) => [row.id.toLowerCase(), { job: jobFromRow(row), ahead: row.ahead }]));
  }
}
