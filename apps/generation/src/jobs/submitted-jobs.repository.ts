import { Inject, Injectable } from '@nestjs/common';
import { readRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../generation.tokens';
import type { JobEntity } from './job.entity';
import { jobColumns, jobFromRow, JobRow } from './jobs.repository';

/** A job of an account as it stands, with how many of the account's queued jobs are ahead of it (queued only). */
export interface JobWithPosition {
  job: JobEntity;
  ahead: number | null;
}

/** The read after a submit: many just-admitted jobs (of any accounts) in one statement. */
@Injectable()
export class SubmittedJobsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /**
   * One entry per `(accountId, jobId)` pair that exists (a pair of another account finds nothing).
   * The position is the same index range count as `JobsRepository.queuePositions`. A plain read:
   * retried through a database blip.
   */
  async find(pairs: ReadonlyArray<{ accountId: string; jobId: string }>): Promise<Map<string, JobWithPosition>> {
    const rows = await readRows<JobRow & { ahead: number | null }>(this.db,
      `SELECT ${jobColumns('jobs')},
              CASE WHEN jobs.status = 'queued' THEN
                (SELECT count(*)::int FROM jobs q WHERE q.account_id = jobs.account_id AND q.status = 'queued' AND q.seq < jobs.seq)
              END AS ahead
       FROM unnest($1::uuid[], $2::uuid[]) AS p(id, account_id)
       JOIN jobs ON jobs.id = p.id AND jobs.account_id = p.account_id`,
      [pairs.map((p) => p.jobId), pairs.map((p) => p.accountId)],
    );
    return new Map(rows.map((row) => [row.id.toLowerCase(), { job: jobFromRow(row), ahead: row.ahead }]));
  }
}
