import { entityColumns, RowOf } from '@gen/persistence';
import { JobEntity } from './job.entity';

/** A `jobs` row as raw SQL returns it: the entity's columns (job.entity.ts, the one list), `seq` (a bigint) as a string. */
export type JobRow = RowOf<JobEntity, { seq: string }>;

const JOB_COLUMNS = entityColumns(JobEntity);

/** The job column names, in the entity's order (named, never `*`, in prepared statements). */
export const JOB_COLUMN_NAMES = JOB_COLUMNS.names;

/** The job columns, each as `<of>.<column>` (a table alias, or a composite value such as `(r.job)`). */
export function jobColumns(of: string): string {
  return JOB_COLUMNS.list(of);
}

export function jobFromRow(row: JobRow): JobEntity {
  return JOB_COLUMNS.fromRow(row);
}

/** Jobs in submission order. */
export function bySeq(jobs: JobEntity[]): JobEntity[] {
  return jobs.sort((a, b) => a.seq - b.seq);
}
