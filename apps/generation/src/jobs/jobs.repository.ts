import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import type { GenerationType, JobStatus } from '@gen/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { GENERATION_DB } from '../generation.tokens';
import { OutboxEventEntity } from '../outbox/outbox-event.entity';
import { JobEntity } from './job.entity';

export interface NewJob {
  id: string;
  accountId: string;
  apiKeyId: string;
  modelId: string;
  type: GenerationType;
  prompt: string;
  credits: number;
  parallelLimit: number;
  webhookUrl: string | null;
  /** `Cancel-After`: canceled unless finished this many seconds after submit (null: no deadline). */
  cancelAfterSeconds?: number | null;
}

/** First key of the advisory locks that serialise one account's admissions (the second is the account's hash). */
const ADMISSION_LOCK_SPACE = 0x6a6f62; // 'job'

export type AdmitOutcome =
  | { kind: 'queued' }
  | { kind: 'exists' }
  | { kind: 'queue-full'; queued: number; processing: number; retryAfterSeconds: number };

export type JobOutcome =
  | { status: 'completed'; outputKey: string; contentType: string; /** retention: the output is deleted after this */ keepSeconds: number }
  | { status: 'failed'; error: string; /** set for a cancel (by the user or a deadline): `canceled_at` */ canceled?: boolean };

/** What a cancel found. */
export type CancelOutcome =
  | { kind: 'canceled'; job: JobEntity; /** it was running somewhere: its worker must stop */ wasProcessing: boolean }
  | { kind: 'already-canceled'; job: JobEntity }
  | { kind: 'finished'; job: JobEntity }
  | { kind: 'not-found' };

export interface OutboxMessage {
  id: string;
  pattern: string;
  payload: unknown;
}

/** Every query of the generation schema's jobs. State changes are guarded in SQL, so they happen once. */
@Injectable()
export class JobsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /**
   * Queues the job unless the account already has `parallelLimit + maxWaiting` jobs queued or
   * running (its parallel slots plus the queue cap). Submits of one account take turns on a
   * transaction-scoped advisory lock, so any number of replicas cannot overfill the queue.
   *
   * Not the slot row claims lock: a claim moves a job from queued to processing, which leaves the
   * count unchanged, and a finish only lowers it, so admissions need to exclude each other only,
   * and a burst of submits never delays the claims that drain the queue.
   * A job id that already exists is left as it is ('exists': a repeated submit).
   */
  async admit(job: NewJob, maxWaiting: number): Promise<AdmitOutcome> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [ADMISSION_LOCK_SPACE, job.accountId]);
      // One statement, with a snapshot taken after the lock: it sees every admission before ours.
      const rows = await sqlRows<{ inserted: string; existed: boolean; queued: string; processing: string }>(
        tx,
        `WITH counts AS (
           SELECT count(*) FILTER (WHERE status = 'queued') AS queued, count(*) FILTER (WHERE status = 'processing') AS processing
           FROM jobs WHERE account_id = $2::uuid AND status IN ('queued', 'processing')
         ), inserted AS (
           INSERT INTO jobs (id, account_id, api_key_id, model_id, type, prompt, status, credits, parallel_limit, webhook_url, deadline_at)
           SELECT $1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::text, 'queued', $7::int, $8::int, $9::text,
                  now() + ($11::int * interval '1 second')
           FROM counts WHERE counts.queued + counts.processing < $8::int + $10::int
           ON CONFLICT (id) DO NOTHING
           RETURNING id
         )
         SELECT (SELECT count(*) FROM inserted) AS inserted, EXISTS (SELECT 1 FROM jobs WHERE id = $1::uuid) AS existed,
                counts.queued, counts.processing
         FROM counts`,
        [job.id, job.accountId, job.apiKeyId, job.modelId, job.type, job.prompt, job.credits, job.parallelLimit, job.webhookUrl, maxWaiting, job.cancelAfterSeconds ?? null],
      );
      const row = rows[0];
      if (Number(row.inserted) === 1) return { kind: 'queued' } as const;
      if (row.existed) return { kind: 'exists' } as const;
      return {
        kind: 'queue-full',
        queued: Number(row.queued),
        processing: Number(row.processing),
        retryAfterSeconds: await this.nextSlotEstimate(tx, job.accountId),
      } as const;
    });
  }

  /**
   * Seconds until a running job of the account is likely to finish (and free a queue place): the
   * mean run time of its last 20 finished jobs less the age of its oldest running one; 1 to 60.
   */
  private async nextSlotEstimate(tx: EntityManager, accountId: string): Promise<number> {
    const rows = await sqlRows<{ mean_run: string | null; oldest_running: string | null }>(
      tx,
      `SELECT
         (SELECT avg(extract(epoch FROM recent.completed_at - recent.started_at)) FROM (
            SELECT completed_at, started_at FROM jobs
            WHERE account_id = $1 AND status IN ('completed', 'failed') AND started_at IS NOT NULL
            ORDER BY seq DESC LIMIT 20) recent) AS mean_run,
         (SELECT extract(epoch FROM now() - min(started_at)) FROM jobs
          WHERE account_id = $1 AND status = 'processing') AS oldest_running`,
      [accountId],
    );
    const meanRun = rows[0].mean_run === null ? 5 : Number(rows[0].mean_run);
    const oldestRunning = rows[0].oldest_running === null ? 0 : Number(rows[0].oldest_running);
    return Math.min(60, Math.max(1, Math.ceil(meanRun - oldestRunning)));
  }

  findById(jobId: string): Promise<JobEntity | null> {
    return this.db.getRepository(JobEntity).findOneBy({ id: jobId });
  }

  findForAccount(accountId: string, jobId: string): Promise<JobEntity | null> {
    return this.db.getRepository(JobEntity).findOneBy({ id: jobId, accountId });
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
    return query.getMany();
  }

  /**
   * Accounts with queued work, the one waiting longest first (fair across accounts). A loose index
   * scan of `jobs_queued (account_id, seq)`: one probe per account for its oldest queued job, so the
   * cost follows the number of waiting accounts, not the length of their queues.
   */
  async accountsWithQueuedJobs(limit: number): Promise<string[]> {
    const rows = await sqlRows<{ account_id: string }>(this.db,
      `WITH RECURSIVE heads AS (
         (SELECT account_id, seq FROM jobs WHERE status = 'queued' ORDER BY account_id, seq LIMIT 1)
         UNION ALL
         SELECT next.account_id, next.seq FROM heads
         CROSS JOIN LATERAL (
           SELECT account_id, seq FROM jobs WHERE status = 'queued' AND account_id > heads.account_id
           ORDER BY account_id, seq LIMIT 1
         ) next
       )
       SELECT account_id FROM heads ORDER BY seq LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.account_id);
  }

  /**
   * Claims up to `max` of the account's oldest queued jobs, as many as its free parallel slots allow
   * (docs/jobs.md). The decision is made under a lock on the account's row in `account_slots`, so
   * claimers on any number of replicas can never exceed the limit, and jobs start in submission
   * order. A claimer that finds the account being claimed by someone else right now skips it
   * (SKIP LOCKED) instead of queueing behind the lock: the other claimer is already serving it.
   */
  async claim(accountId: string, owner: string, leaseMs: number, max = 1): Promise<JobEntity[]> {
    return this.db.transaction(async (tx) => {
      // The account's lock is held until commit; an asynchronous commit releases it without waiting
      // for the WAL flush. A claim lost in a database crash is harmless: the job is queued again,
      // its worker finds it no longer owns it at the next heartbeat, and finish() (synchronous) is
      // guarded by the lease owner. Money and final states keep synchronous commits.
      await tx.query(`SET LOCAL synchronous_commit = off`);
      let locked = await sqlRows<unknown>(tx, `SELECT 1 FROM account_slots WHERE account_id = $1 FOR UPDATE SKIP LOCKED`, [accountId]);
      if (locked.length === 0) {
        // First claim for this account (a new row is locked by its inserter), or someone holds it.
        locked = await sqlRows<unknown>(tx, `INSERT INTO account_slots (account_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING 1`, [accountId]);
        if (locked.length === 0) return [];
      }
      // The head job's parallel_limit is the account's limit (taken from its plan at submit).
      const rows = await sqlRows<JobRow>(tx,
        `WITH head AS (
           SELECT id, seq, parallel_limit FROM jobs WHERE account_id = $1 AND status = 'queued' ORDER BY seq LIMIT $4
         ), free AS (
           SELECT (SELECT parallel_limit FROM head ORDER BY seq LIMIT 1)
                - (SELECT count(*) FROM jobs WHERE account_id = $1 AND status = 'processing') AS slots
         )
         UPDATE jobs SET status = 'processing', started_at = COALESCE(started_at, now()), attempts = attempts + 1,
                lease_owner = $2, lease_expires_at = now() + ($3::int * interval '1 millisecond')
         WHERE id IN (SELECT id FROM head ORDER BY seq LIMIT GREATEST(0, (SELECT slots FROM free)))
           AND status = 'queued'
         RETURNING *`,
        [accountId, owner, leaseMs, max],
      );
      return rows.map(jobFromRow).sort((a, b) => a.seq - b.seq);
    });
  }

  /**
   * Stores the upstream job a provider adapter submitted this job as, before it waits on it, so a
   * later attempt (after this worker died) attaches to it instead of submitting again. Synchronous
   * commit: this is what stands between a crash and paying the provider twice. False when this
   * worker no longer holds the job.
   */
  async saveUpstreamRef(jobId: string, owner: string, ref: string): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(this.db,
      `UPDATE jobs SET upstream_ref = $3 WHERE id = $1 AND status = 'processing' AND lease_owner = $2 RETURNING id`,
      [jobId, owner, ref],
    );
    return rows.length === 1;
  }

  /**
   * Extends the leases of the jobs this worker runs. Returns the ids it still owns, and among the
   * others those that are finished (canceled, or failed by an operator): their runs must stop; the
   * rest were taken over by another worker.
   */
  async heartbeat(owner: string, jobIds: string[], leaseMs: number): Promise<{ owned: string[]; finished: string[] }> {
    if (jobIds.length === 0) return { owned: [], finished: [] };
    const rows = await sqlRows<{ id: string; owned: boolean; finished: boolean }>(this.db,
      `WITH extended AS (
         UPDATE jobs SET lease_expires_at = now() + ($3::int * interval '1 millisecond')
         WHERE id = ANY($2::uuid[]) AND status = 'processing' AND lease_owner = $1 RETURNING id
       )
       SELECT jobs.id, jobs.id IN (SELECT id FROM extended) AS owned, jobs.status IN ('completed', 'failed') AS finished
       FROM jobs WHERE jobs.id = ANY($2::uuid[])`,
      [owner, jobIds, leaseMs],
    );
    return { owned: rows.filter((r) => r.owned).map((r) => r.id), finished: rows.filter((r) => !r.owned && r.finished).map((r) => r.id) };
  }

  /**
   * Writes a job's final state and its event in one transaction. Only the lease owner of a
   * processing job can finish it (or anyone, with owner null, for operator and reclaim paths).
   */
  async finish(
    jobId: string,
    owner: string | null,
    outcome: JobOutcome,
    buildEvent: (job: JobEntity) => OutboxMessage,
  ): Promise<JobEntity | null> {
    return this.db.transaction(async (tx) => {
      const params =
        outcome.status === 'completed'
          ? [jobId, owner, 'completed', outcome.outputKey, outcome.contentType, null, false, outcome.keepSeconds]
          : [jobId, owner, 'failed', null, null, outcome.error, outcome.canceled === true, null];
      const rows = await sqlRows<JobRow>(tx,
        `UPDATE jobs SET status = $3, output_key = $4, output_content_type = $5, error = $6, completed_at = now(),
                lease_owner = NULL, lease_expires_at = NULL,
                canceled_at = CASE WHEN $7::boolean THEN now() END,
                progress = CASE WHEN $3 = 'completed' THEN 1 ELSE progress END,
                output_expires_at = now() + ($8::int * interval '1 second')
         WHERE id = $1 AND status IN ('queued', 'processing') AND ($2::text IS NULL OR lease_owner = $2)
         RETURNING *`,
        params,
      );
      if (rows.length === 0) return null;
      const job = jobFromRow(rows[0]);
      await this.appendOutbox(tx, buildEvent(job));
      return job;
    });
  }

  /**
   * Cancels an unfinished job of the account, queued or processing, in one transaction with its
   * generation.failed event (so billing refunds it). The final state is guarded like every finish:
   * if the worker's completion commits first, this finds the job finished and changes nothing; if
   * this commits first, the worker's finish finds no processing job and its output is discarded.
   * Either way the job is charged exactly once or refunded exactly once.
   */
  async cancel(accountId: string, jobId: string, error: string, buildEvent: (job: JobEntity) => OutboxMessage): Promise<CancelOutcome> {
    return this.db.transaction(async (tx) => {
      const rows = await sqlRows<JobRow & { was_processing: boolean }>(tx,
        `WITH before AS (SELECT id, status FROM jobs WHERE id = $1 AND account_id = $2 FOR UPDATE)
         UPDATE jobs SET status = 'failed', error = $3, completed_at = now(), canceled_at = now(),
                lease_owner = NULL, lease_expires_at = NULL
         FROM before
         WHERE jobs.id = before.id AND before.status IN ('queued', 'processing')
         RETURNING jobs.*, before.status = 'processing' AS was_processing`,
        [jobId, accountId, error],
      );
      if (rows.length === 1) {
        const job = jobFromRow(rows[0]);
        await this.appendOutbox(tx, buildEvent(job));
        return { kind: 'canceled', job, wasProcessing: rows[0].was_processing } as const;
      }
      const existing = await sqlRows<JobRow>(tx, `SELECT * FROM jobs WHERE id = $1 AND account_id = $2`, [jobId, accountId]);
      if (existing.length === 0) return { kind: 'not-found' } as const;
      const job = jobFromRow(existing[0]);
      return job.canceledAt ? ({ kind: 'already-canceled', job } as const) : ({ kind: 'finished', job } as const);
    });
  }

  /** Unfinished jobs past their `Cancel-After` deadline, oldest deadline first. */
  async pastDeadline(limit: number): Promise<Array<{ id: string; account_id: string }>> {
    return sqlRows(this.db,
      `SELECT id, account_id FROM jobs WHERE status IN ('queued', 'processing') AND deadline_at <= now()
       ORDER BY deadline_at LIMIT $1`,
      [limit],
    );
  }

  /**
   * For queued jobs of the account (by seq): how many of its queued jobs are ahead of each, in
   * submission order (the order claims take). One index range count per job (jobs_queued).
   */
  async queuePositions(accountId: string, seqs: number[]): Promise<Map<number, number>> {
    if (seqs.length === 0) return new Map();
    const rows = await sqlRows<{ seq: string; ahead: number }>(this.db,
      `SELECT s.seq, (SELECT count(*)::int FROM jobs WHERE account_id = $1 AND status = 'queued' AND seq < s.seq) AS ahead
       FROM unnest($2::bigint[]) AS s(seq)`,
      [accountId, seqs],
    );
    return new Map(rows.map((r) => [Number(r.seq), r.ahead]));
  }

  /**
   * Stores the progress engines reported, for many running jobs in one statement. Asynchronous
   * commit: progress is a hint, and a value lost in a database crash is written again a second later.
   */
  async saveProgress(owner: string, progress: ReadonlyMap<string, number>): Promise<void> {
    if (progress.size === 0) return;
    await this.db.transaction(async (tx) => {
      await tx.query(`SET LOCAL synchronous_commit = off`);
      await tx.query(
        `UPDATE jobs SET progress = p.value
         FROM unnest($2::uuid[], $3::real[]) AS p(id, value)
         WHERE jobs.id = p.id AND jobs.status = 'processing' AND jobs.lease_owner = $1`,
        [owner, [...progress.keys()], [...progress.values()]],
      );
    });
  }

  /**
   * The outputs past their retention, at most `limit`, locked for the caller's transaction (another
   * replica's janitor skips them). `remove` deletes the files; then they are marked deleted.
   */
  async sweepExpiredOutputs(limit: number, remove: (outputKeys: string[]) => Promise<void>): Promise<number> {
    return this.db.transaction(async (tx) => {
      const rows = await sqlRows<{ id: string; output_key: string }>(tx,
        `SELECT id, output_key FROM jobs
         WHERE status = 'completed' AND output_deleted_at IS NULL AND output_expires_at <= now()
         ORDER BY output_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      await remove(rows.map((r) => r.output_key));
      await tx.query(`UPDATE jobs SET output_deleted_at = now() WHERE id = ANY($1::uuid[])`, [rows.map((r) => r.id)]);
      return rows.length;
    });
  }

  /** Whether an output key belonged to a job whose output was deleted at the end of its retention. */
  async outputExpired(outputKey: string): Promise<boolean> {
    const rows = await sqlRows<unknown>(this.db, `SELECT 1 FROM jobs WHERE output_key = $1 AND output_deleted_at IS NOT NULL`, [outputKey]);
    return rows.length > 0;
  }

  /** One job of `release`: true when it was still ours and is queued again. */
  async handBack(jobId: string, owner: string): Promise<boolean> {
    return (await this.release(owner, [jobId])).length > 0;
  }

  /** Jobs whose worker stopped heart-beating: back to the queue, or failed after too many attempts. */
  async expiredLeases(limit: number): Promise<Array<{ id: string; attempts: number }>> {
    return this.db.query(
      `SELECT id, attempts FROM jobs WHERE status = 'processing' AND lease_expires_at < now()
       ORDER BY lease_expires_at LIMIT $1`,
      [limit],
    );
  }

  /** Hands jobs back to the queue (graceful shutdown); the interrupted run does not count as an attempt. */
  async release(owner: string, jobIds: string[]): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const rows = await sqlRows<{ id: string }>(this.db,
      `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, attempts = GREATEST(attempts - 1, 0)
       WHERE id = ANY($2::uuid[]) AND status = 'processing' AND lease_owner = $1 RETURNING id`,
      [owner, jobIds],
    );
    return rows.map((r) => r.id);
  }

  async requeueExpired(jobId: string): Promise<boolean> {
    const rows = await sqlRows<unknown>(this.db, 
      `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
       WHERE id = $1 AND status = 'processing' AND lease_expires_at < now() RETURNING id`,
      [jobId],
    );
    return rows.length > 0;
  }

  async pendingOutbox(tx: EntityManager, limit: number): Promise<OutboxEventEntity[]> {
    return tx.query(
      `SELECT id, pattern, payload FROM outbox WHERE published_at IS NULL ORDER BY created_at
       LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  async markPublished(tx: EntityManager, ids: string[]): Promise<void> {
    if (ids.length > 0) await tx.query(`UPDATE outbox SET published_at = now() WHERE id = ANY($1::uuid[])`, [ids]);
  }

  async markPublishFailed(tx: EntityManager, ids: string[]): Promise<void> {
    if (ids.length > 0) {
      await tx.query(`UPDATE outbox SET publish_attempts = publish_attempts + 1 WHERE id = ANY($1::uuid[])`, [ids]);
    }
  }

  inTransaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  private async appendOutbox(tx: EntityManager, message: OutboxMessage): Promise<void> {
    await tx.query(`INSERT INTO outbox (id, pattern, payload) VALUES ($1, $2, $3::jsonb)`, [
      message.id,
      message.pattern,
      JSON.stringify(message.payload),
    ]);
  }
}

/** A `jobs` row as `RETURNING *` gives it. */
interface JobRow {
  id: string;
  seq: string;
  account_id: string;
  api_key_id: string;
  model_id: string;
  type: JobEntity['type'];
  prompt: string;
  status: JobEntity['status'];
  credits: number;
  parallel_limit: number;
  webhook_url: string | null;
  output_key: string | null;
  output_content_type: string | null;
  error: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  upstream_ref: string | null;
  canceled_at: Date | null;
  deadline_at: Date | null;
  progress: number | null;
  output_expires_at: Date | null;
  output_deleted_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

function jobFromRow(row: JobRow): JobEntity {
  return Object.assign(new JobEntity(), {
    id: row.id,
    seq: Number(row.seq),
    accountId: row.account_id,
    apiKeyId: row.api_key_id,
    modelId: row.model_id,
    type: row.type,
    prompt: row.prompt,
    status: row.status,
    credits: row.credits,
    parallelLimit: row.parallel_limit,
    webhookUrl: row.webhook_url,
    outputKey: row.output_key,
    outputContentType: row.output_content_type,
    error: row.error,
    attempts: row.attempts,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    upstreamRef: row.upstream_ref,
    canceledAt: row.canceled_at,
    deadlineAt: row.deadline_at,
    progress: row.progress,
    outputExpiresAt: row.output_expires_at,
    outputDeletedAt: row.output_deleted_at,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
  } satisfies Omit<JobEntity, never>);
}
