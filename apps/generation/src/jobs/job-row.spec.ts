import { JobEntity } from './job.entity';
import { JOB_COLUMN_NAMES, jobColumns, jobFromRow, JobRow } from './job-row';

describe('job rows (derived from JobEntity)', () => {
  it('lists every column of the entity, named as in the table', () => {
    expect(JOB_COLUMN_NAMES).toEqual([
      'id', 'seq', 'account_id', 'api_key_id', 'model_id', 'type', 'prompt', 'status', 'credits', 'parallel_limit', 'webhook_url',
      'input', 'metadata', 'outputs', 'output_key', 'output_content_type', 'error', 'attempts', 'lease_owner', 'lease_expires_at',
      'upstream_ref', 'canceled_at', 'deadline_at', 'progress', 'output_expires_at', 'output_deleted_at', 'next_check_at',
      'upstream_checks', 'upstream_at', 'upstream_deadline_at', 'upstream_queue_position', 'created_at', 'started_at', 'completed_at',
    ]);
    expect(jobColumns('(r.job)').split(', ')[1]).toBe('(r.job).seq');
  });

  it('maps a raw row to the entity, seq (a bigint string) as a number', () => {
    const row = Object.fromEntries(JOB_COLUMN_NAMES.map((name) => [name, null])) as unknown as JobRow;
    const job = jobFromRow({ ...row, id: 'j1', seq: '42', account_id: 'a1', outputs: [] });
    expect(job).toBeInstanceOf(JobEntity);
    expect(job).toMatchObject({ id: 'j1', seq: 42, accountId: 'a1', outputs: [], completedAt: null });
  });
});
