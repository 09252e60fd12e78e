import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { PreparedStatement, readSqlFile, readSqlStatement, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';
import type { JobEntity } from './job.entity';
import { bySeq, JOB_COLUMN_NAMES, jobFromRow, JobRow } from './job-row';

const sql = (file: string) => readSqlFile(join(__dirname, file));
const claimJobs = new PreparedStatement<JobRow>('generation.claim_jobs', readSqlStatement(join(__dirname, 'claim-jobs.sql'), JOB_COLUMN_NAMES));
const claimJobsExcept = new PreparedStatement<JobRow>(
  'generation.claim_jobs_except',
  readSqlStatement(join(__dirname, 'claim-jobs-except.sql'), JOB_COLUMN_NAMES),
);
const QUEUED_ACCOUNTS = sql('queued-accounts.sql');
const HEARTBEAT = sql('heartbeat.sql');
const SAVE_PROGRESS = sql('save-progress.sql');
const RELEASE_JOBS = sql('release-jobs.sql');

/**
 * A worker's statements on the jobs it takes: fair claims, its leases (heartbeats, hand-backs)
 * and the progress of a run. Each change is guarded by the lease owner in SQL.
 */
@Injectable()
export class JobClaimsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /**
   * Accounts with queued work, the one waiting longest first (fair across accounts). A loose index
   * scan of `jobs_queued (account_id, seq)`: one probe per account for its oldest queued job, so the
   * cost follows the number of waiting accounts, not the length of their queues.
   */
  async accountsWithQueuedJobs(limit: number): Promise<string[]> {
    const rows = await sqlRows<{ account_id: string }>(this.db, QUEUED_ACCOUNTS, [limit]);
    return rows.map((r) => r.account_id);
  }

  /**
   * Claims up to `max` of the account's oldest queued jobs, as many as its free parallel slots allow
   * (docs/design/jobs.md), in one round trip (claim-jobs.function.sql). The decision is made under a lock on
   * the account's row in `account_slots`, so claimers on any number of replicas can never exceed the
   * limit, and jobs start in submission order. A claimer that finds the account being claimed by
   * someone else right now skips it (SKIP LOCKED) instead of queueing behind the lock: the other
   * claimer is already serving it.
   *
   * Asynchronous commit: the account's lock is released without waiting for the WAL flush. A claim
   * lost in a database crash is harmless: the job is queued again, its worker finds it no longer
   * owns it at the next heartbeat, and the finish (synchronous) is guarded by the lease owner.
   */
  async claim(accountId: string, owner: string, leaseMs: number, max = 1, skipModels: readonly string[] = []): Promise<JobEntity[]> {
    // `skipModels`: the same claim, leaving queued the jobs of those models (claim-jobs-except.function.sql):
    // another pool's models, or a binding at its maxInFlight.
    const rows = skipModels.length === 0 ? await claimJobs.rows(this.db, [accountId, owner, leaseMs, max]) : await claimJobsExcept.rows(this.db, [accountId, owner, leaseMs, max, skipModels]);
    return bySeq(rows.map(jobFromRow));
  }

  /**
   * Extends the leases of the jobs this worker runs. Returns the ids it still owns, and among the
   * others those that are finished (canceled, or failed by an operator): their runs must stop; the
   * rest were taken over by another worker.
   */
  async heartbeat(owner: string, jobIds: string[], leaseMs: number): Promise<{ owned: string[]; finished: string[] }> {
    if (jobIds.length === 0) return { owned: [], finished: [] };
    const rows = await sqlRows<{ id: string; owned: boolean; finished: boolean }>(this.db, HEARTBEAT, [owner, jobIds, leaseMs]);
    return { owned: rows.filter((r) => r.owned).map((r) => r.id), finished: rows.filter((r) => !r.owned && r.finished).map((r) => r.id) };
  }

  /**
   * Stores the progress engines reported, for many running jobs in one statement. Asynchronous
   * commit: progress is a hint, and a value lost in a database crash is written again a second later.
   */
  async saveProgress(owner: string, progress: ReadonlyMap<string, number>): Promise<void> {
    if (progress.size === 0) return;
    await this.db.query(SAVE_PROGRESS, [owner, [...progress.keys()], [...progress.values()]]);
  }

  /** One job of `release`: true when it was still ours and is queued again. */
  async handBack(jobId: string, owner: string): Promise<boolean> {
    return (await this.release(owner, [jobId])).length > 0;
  }

  /** Hands jobs back to the queue (graceful shutdown); the interrupted run does not count as an attempt. */
  async release(owner: string, jobIds: string[]): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const rows = await sqlRows<{ id: string }>(this.db, RELEASE_JOBS, [owner, jobIds]);
    return rows.map((r) => r.id);
  }
}
