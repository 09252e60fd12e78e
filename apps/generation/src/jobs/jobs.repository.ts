import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { BatchQueue, isRefusedValue, PreparedStatement, readRows, retryTransient, sqlRows } from '@gen/persistence';
import type { GenerationType, JobStatus } from '@gen/contracts';
import { DataSource, QueryRunner } from 'typeorm';
import { GENERATION_DB } from '../generation.tokens';
import { OutboxLease, OutboxMessage, OutboxRepository } from '../outbox/outbox.repository';
import { JobEntity, JobOutput } from './job.entity';
import { DEFAULT_JOB_ADMISSION_SETTINGS, JOB_ADMISSION_SETTINGS, JobAdmissionSettings } from './job-admission.settings';

export type { OutboxLease, OutboxMessage } from '../outbox/outbox.repository';

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
  /** The customer's input as applied (validated, defaults filled in); `{}` when none. */
  input?: Record<string, unknown>;
  /** The customer's metadata; `{}` when none. */
  metadata?: Record<string, string>;
}

/** A claim made with an admission, for the submitting process's free workers (see `admit`). */
export interface ClaimOffer {
  owner: string;
  leaseMs: number;
  /** Jobs it can take now (0: admit only). */
  max: number;
}

export type AdmitOutcome =
  | { kind: 'queued'; /** jobs of the account claimed for the offer's owner, oldest first (often just this one) */ claimed: JobEntity[] }
  | { kind: 'exists' }
  | { kind: 'queue-full'; queued: number; processing: number; retryAfterSeconds: number };

export type JobOutcome =
  | { status: 'completed'; /** every output stored, in order (at least one) */ outputs: JobOutput[]; /** retention: the outputs are deleted after this */ keepSeconds: number }
  | { status: 'failed'; error: string; /** set for a cancel (by the user or a deadline): `canceled_at` */ canceled?: boolean };

/** One submit's admission, as the admission queue holds it. */
interface Admission {
  job: NewJob;
  maxWaiting: number;
  offer?: ClaimOffer;
}

/** An admission's outcome before a full queue's retry estimate is added. */
type Admitted = Exclude<AdmitOutcome, { kind: 'queue-full' }> | { kind: 'queue-full'; queued: number; processing: number };

/** What a cancel found. */
export type CancelOutcome =
  | {
      kind: 'canceled';
      job: JobEntity;
      event: OutboxMessage;
      /** it was running somewhere: its worker must stop */
      wasProcessing: boolean;
      /** it was parked (waiting upstream, no worker): its upstream job is canceled by the canceler */
      wasParked: boolean;
    }
  | { kind: 'already-canceled'; job: JobEntity }
  | { kind: 'finished'; job: JobEntity }
  | { kind: 'not-found' };

/** One job's finish, as `finishMany` takes it. */
export interface FinishRequest {
  jobId: string;
  /** The lease owner finishing it; null for operator and reclaim paths (anyone may finish). */
  owner: string | null;
  outcome: JobOutcome;
  /** Its event, built from the final row. */
  event: (job: JobEntity) => OutboxMessage;
}

/** A job finished by `finishMany`, with the event written with it. */
export interface FinishedJob {
  job: JobEntity;
  event: OutboxMessage;
}

/** Every query of the generation schema's jobs. State changes are guarded in SQL, so they happen once. */
@Injectable()
export class JobsRepository implements OnModuleDestroy {
  private readonly admissions: BatchQueue<Admission, Admitted>;

  constructor(
    @Inject(GENERATION_DB) private readonly db: DataSource,
    // Events are written in the job's own transactions; tools that build this by hand get one on the same DataSource.
    private readonly outbox: OutboxRepository = new OutboxRepository(db),
    @Optional() @Inject(JOB_ADMISSION_SETTINGS) admission: JobAdmissionSettings | null = null,
  ) {
    // A batch PostgreSQL refuses for one item's value is run again item by item: only that item fails.
    this.admissions = new BatchQueue((items) => this.admitBatch(items), {
      maxBatch: (admission ?? DEFAULT_JOB_ADMISSION_SETTINGS).maxBatch,
      isolate: isRefusedValue,
    });
  }

  /**
   * Queues the job unless the account already has `parallelLimit + maxWaiting` jobs queued or
   * running (its parallel slots plus the queue cap), and with an offer, claims the account's head
   * jobs for the offer's owner in the same statement. Admissions that arrive together are
   * group-committed: one `admit_batch` statement (migration 1764740000000) and one synchronous commit
   * per batch, so every accepted job is durable before its caller is told. Within the statement each
   * account is admitted under a transaction-scoped advisory lock (accounts in id order), so any
   * number of replicas cannot overfill a queue.
   *
   * Not the slot row claims lock: a claim moves a job from queued to processing, which leaves the
   * count unchanged, and a finish only lowers it, so admissions need to exclude each other only,
   * and a burst of submits never delays the claims that drain the queue. The claim made here is
   * the same as `claim`'s (the account's row locked, its limit and order kept), except that it waits
   * for the row instead of skipping the account; an admission may be given an older queued job of its
   * account instead of its own (the account's head goes first).
   * A job id that already exists is left as it is ('exists': a repeated submit).
   */
  async admit(job: NewJob, maxWaiting: number, offer?: ClaimOffer): Promise<AdmitOutcome> {
    const admitted = await this.admissions.push({ job, maxWaiting, offer });
    if (admitted.kind !== 'queue-full') return admitted;
    return { ...admitted, retryAfterSeconds: await this.nextSlotEstimate(job.accountId) };
  }

  /** Waits for every queued admission to be written (before the DataSource closes). */
  async onModuleDestroy(): Promise<void> {
    await this.admissions.drain();
  }

  private async admitBatch(items: readonly Admission[]): Promise<Admitted[]> {
    // Every offer of a process names the same owner and lease; items of another owner go alone.
    const owner = items.find((i) => i.offer)?.offer;
    if (items.some((i) => i.offer && (i.offer.owner !== owner?.owner || i.offer.leaseMs !== owner.leaseMs))) {
      return Promise.all(items.map(async (item) => (await this.admitBatch([item]))[0]));
    }
    // Keyed by job id: a run repeated after a lost connection finds the jobs the first one admitted.
    const rows = await retryTransient(() =>
      admitBatch.rows(this.db, [
        items.map((i) => i.job.id),
        items.map((i) => i.job.accountId),
        items.map((i) => i.job.apiKeyId),
        items.map((i) => i.job.modelId),
        items.map((i) => i.job.type),
        items.map((i) => i.job.prompt),
        items.map((i) => i.job.credits),
        items.map((i) => i.job.parallelLimit),
        items.map((i) => i.job.webhookUrl),
        items.map((i) => i.job.cancelAfterSeconds ?? null),
        items.map((i) => i.maxWaiting),
        owner?.owner ?? null,
        owner?.leaseMs ?? 0,
        items.map((i) => i.offer?.max ?? 0),
        items.map((i) => JSON.stringify(i.job.input ?? {})),
        items.map((i) => JSON.stringify(i.job.metadata ?? {})),
      ]),
    );
    const results = new Array<Admitted | undefined>(items.length);
    const claimed = items.map((): JobEntity[] => []);
    for (const row of rows) {
      const index = row.item - 1;
      if (row.outcome === 'claimed') claimed[index].push(jobFromRow(row as AdmitRow & JobRow));
      else if (row.outcome === 'queued') results[index] = { kind: 'queued', claimed: claimed[index] };
      else if (row.outcome === 'exists') results[index] = { kind: 'exists' };
      else results[index] = { kind: 'queue-full', queued: Number(row.queued), processing: Number(row.processing) };
    }
    return results.map((result, i) => {
      if (!result) throw new Error(`admit_batch returned no outcome for item ${i + 1} of ${items.length}`);
      return result.kind === 'queued' ? { kind: 'queued', claimed: bySeq(result.claimed) } : result;
    });
  }

  /**
   * Seconds until a running job of the account is likely to finish (and free a queue place): the
   * mean run time of its last 20 finished jobs less the age of its oldest running one; 1 to 60.
   */
  private async nextSlotEstimate(accountId: string): Promise<number> {
    const rows = await readRows<{ mean_run: string | null; oldest_running: string | null }>(
      this.db,
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
   * (docs/design/jobs.md), in one round trip (function `claim_jobs`, migration 1764730000000). The decision
   * is made under a lock on the account's row in `account_slots`, so claimers on any number of
   * replicas can never exceed the limit, and jobs start in submission order. A claimer that finds
   * the account being claimed by someone else right now skips it (SKIP LOCKED) instead of queueing
   * behind the lock: the other claimer is already serving it.
   *
   * Asynchronous commit: the account's lock is released without waiting for the WAL flush. A claim
   * lost in a database crash is harmless: the job is queued again, its worker finds it no longer
   * owns it at the next heartbeat, and the finish (synchronous) is guarded by the lease owner.
   */
  async claim(accountId: string, owner: string, leaseMs: number, max = 1, skipModels: readonly string[] = []): Promise<JobEntity[]> {
    // `skipModels`: the same claim, leaving queued the jobs of those models (function `claim_jobs_except`,
    // migration 1764810000000): another pool's models, or a binding at its maxInFlight.
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
   * Writes a job's final state and its event in one transaction (`finishMany` for one job). Only the
   * lease owner of a processing job can finish it (or anyone, with owner null, for operator and
   * reclaim paths). With a lease, the event is held by that relay, which publishes it at once.
   */
  async finish(
    jobId: string,
    owner: string | null,
    outcome: JobOutcome,
    buildEvent: (job: JobEntity) => OutboxMessage,
    lease: OutboxLease | null = null,
  ): Promise<JobEntity | null> {
    const [finished] = await this.finishMany([{ jobId, owner, outcome, event: buildEvent }], lease);
    return finished?.job ?? null;
  }

  /**
   * Finishes many jobs in one transaction, one synchronous commit for all (group commit: the final
   * states and their events are durable when this resolves). One result per request, in order:
   * null where the job was not there to finish (already final, or no longer the owner's), exactly as
   * if each had been finished alone. A job named twice is finished by the first request; the second
   * finds it final.
   */
  async finishMany(requests: readonly FinishRequest[], lease: OutboxLease | null): Promise<Array<FinishedJob | null>> {
    if (requests.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const runner = tx.queryRunner as QueryRunner;
      const results: Array<FinishedJob | null> = requests.map(() => null);
      for (const round of distinctJobRounds(requests)) {
        const params = round.map((i) => finishParams(requests[i]));
        const rows = await finishJobs.rows(runner, FINISH_COLUMNS.map((_, column) => params.map((p) => p[column])));
        const finished = new Map(rows.map((row) => [row.id.toLowerCase(), jobFromRow(row)]));
        const events: OutboxMessage[] = [];
        for (const i of round) {
          const job = finished.get(requests[i].jobId.toLowerCase());
          if (!job) continue;
          const event = requests[i].event(job);
          results[i] = { job, event };
          events.push(event);
        }
        await this.outbox.append(runner, events, lease);
      }
      return results;
    });
  }

  /**
   * Cancels an unfinished job of the account, queued or processing, in one transaction with its
   * generation.failed event (so billing refunds it). The final state is guarded like every finish:
   * if the worker's completion commits first, this finds the job finished and changes nothing; if
   * this commits first, the worker's finish finds no processing job and its output is discarded.
   * Either way the job is charged exactly once or refunded exactly once.
   */
  async cancel(
    accountId: string,
    jobId: string,
    error: string,
    buildEvent: (job: JobEntity) => OutboxMessage,
    lease: OutboxLease | null = null,
  ): Promise<CancelOutcome> {
    return this.db.transaction(async (tx) => {
      const rows = await sqlRows<JobRow & { was_processing: boolean; was_parked: boolean }>(tx,
        `WITH before AS (SELECT id, status, lease_owner FROM jobs WHERE id = $1 AND account_id = $2 FOR UPDATE)
         UPDATE jobs SET status = 'failed', error = $3, completed_at = now(), canceled_at = now(),
                lease_owner = NULL, lease_expires_at = NULL, next_check_at = NULL
         FROM before
         WHERE jobs.id = before.id AND before.status IN ('queued', 'processing')
         RETURNING jobs.*, before.status = 'processing' AS was_processing,
                   before.status = 'processing' AND before.lease_owner IS NULL AS was_parked`,
        [jobId, accountId, error],
      );
      if (rows.length === 1) {
        const job = jobFromRow(rows[0]);
        const event = buildEvent(job);
        await this.outbox.append(tx.queryRunner as QueryRunner, [event], lease);
        return { kind: 'canceled', job, event, wasProcessing: rows[0].was_processing, wasParked: rows[0].was_parked } as const;
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
    const rows = await readRows<{ seq: string; ahead: number }>(this.db,
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
      const rows = await sqlRows<{ id: string; output_key: string; outputs: JobOutput[] }>(tx,
        `SELECT id, output_key, outputs FROM jobs
         WHERE status = 'completed' AND output_deleted_at IS NULL AND output_expires_at <= now()
         ORDER BY output_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      await remove(rows.flatMap((r) => outputKeys(r.output_key, r.outputs)));
      await tx.query(`UPDATE jobs SET output_deleted_at = now() WHERE id = ANY($1::uuid[])`, [rows.map((r) => r.id)]);
      return rows.length;
    });
  }

  /**
   * Whether an output key belonged to a job whose outputs were deleted at the end of their retention:
   * its first output (`output_key`, index `jobs_output_key`) or a later one (`outputs`, index
   * `jobs_more_outputs`, which holds only the jobs with more than one).
   */
  async outputExpired(outputKey: string): Promise<boolean> {
    const rows = await sqlRows<unknown>(this.db,
      `SELECT 1 FROM jobs WHERE output_key = $1 AND output_deleted_at IS NOT NULL
       UNION ALL
       (SELECT 1 FROM jobs WHERE jsonb_array_length(outputs) > 1 AND outputs @> jsonb_build_array(jsonb_build_object('key', $1::text))
          AND output_deleted_at IS NOT NULL LIMIT 1)
       LIMIT 1`,
      [outputKey],
    );
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
}

/** A `jobs` row as the statements below return it. */
export interface JobRow {
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
  input: Record<string, unknown>;
  metadata: Record<string, string>;
  outputs: JobOutput[];
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
  next_check_at: Date | null;
  upstream_checks: number;
  upstream_at: Date | null;
  upstream_deadline_at: Date | null;
  upstream_queue_position: number | null;
  output_expires_at: Date | null;
  output_deleted_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

// Named, not `*`: a prepared statement whose result shape changed under it (a column added by a
// migration while this process runs) would fail with "cached plan must not change result type".
const JOB_COLUMNS: ReadonlyArray<keyof JobRow> = [
  'id', 'seq', 'account_id', 'api_key_id', 'model_id', 'type', 'prompt', 'status', 'credits', 'parallel_limit', 'webhook_url',
  'input', 'metadata', 'outputs', 'output_key', 'output_content_type', 'error', 'attempts', 'lease_owner', 'lease_expires_at', 'upstream_ref', 'canceled_at',
  'deadline_at', 'progress', 'next_check_at', 'upstream_checks', 'upstream_at', 'upstream_deadline_at', 'upstream_queue_position', 'output_expires_at',
  'output_deleted_at', 'created_at', 'started_at', 'completed_at',
];

/** The job columns, each as `<of>.<column>` (a table alias, or a composite value such as `(r.job)`). */
export function jobColumns(of: string): string {
  return JOB_COLUMNS.map((column) => `${of}.${column}`).join(', ');
}

const findJob = new PreparedStatement<JobRow>('generation.job_by_id', `SELECT ${jobColumns('jobs')} FROM jobs WHERE id = $1`, { idempotent: true });

const findAccountJob = new PreparedStatement<JobRow>(
  'generation.job_of_account',
  `SELECT ${jobColumns('jobs')} FROM jobs WHERE id = $1 AND account_id = $2`,
  { idempotent: true },
);

/** One row per item (job columns all null), then one per job claimed (outcome 'claimed'). */
type AdmitRow = { item: number; outcome: 'queued' | 'exists' | 'queue-full' | 'claimed'; queued: string; processing: string } & Omit<JobRow, 'id'> & {
  id: string | null;
};

const admitBatch = new PreparedStatement<AdmitRow>(
  'generation.admit_batch',
  `SELECT r.item, r.outcome, r.queued, r.processing, ${jobColumns('(r.job)')}
   FROM admit_batch($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::text[], $10::int[],
                    $11::int[], $12::text, $13::int, $14::int[], $15::jsonb[], $16::jsonb[]) AS r`,
);

const claimJobs = new PreparedStatement<JobRow>(
  'generation.claim_jobs',
  `SELECT ${jobColumns('c')} FROM claim_jobs($1::uuid, $2::text, $3::int, $4::int) AS c`,
);

const claimJobsExcept = new PreparedStatement<JobRow>(
  'generation.claim_jobs_except',
  `SELECT ${jobColumns('c')} FROM claim_jobs_except($1::uuid, $2::text, $3::int, $4::int, $5::text[]) AS c`,
);

/** The arrays `finishJobs` takes, one per column of `f`, in this order. */
const FINISH_COLUMNS = ['id', 'owner', 'status', 'output_key', 'content_type', 'error', 'canceled', 'keep_seconds', 'outputs'] as const;

const finishJobs = new PreparedStatement<JobRow>(
  'generation.finish_jobs',
  `UPDATE jobs SET status = f.status, output_key = f.output_key, output_content_type = f.content_type, error = f.error,
          completed_at = now(), lease_owner = NULL, lease_expires_at = NULL, next_check_at = NULL,
          canceled_at = CASE WHEN f.canceled THEN now() END,
          progress = CASE WHEN f.status = 'completed' THEN 1 ELSE jobs.progress END,
          output_expires_at = now() + (f.keep_seconds * interval '1 second'),
          outputs = COALESCE(f.outputs, jobs.outputs)
   FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::int[], $9::jsonb[])
        AS f(${FINISH_COLUMNS.join(', ')})
   WHERE jobs.id = f.id AND jobs.status IN ('queued', 'processing') AND (f.owner IS NULL OR jobs.lease_owner = f.owner)
   RETURNING ${jobColumns('jobs')}`,
  // Joins jobs to the batch's arrays: planned at each run (see PreparedStatement).
  { planEachRun: true },
);

function finishParams({ jobId, owner, outcome }: FinishRequest): unknown[] {
  if (outcome.status === 'failed') return [jobId, owner, 'failed', null, null, outcome.error, outcome.canceled === true, null, null];
  const [first] = outcome.outputs;
  if (!first) throw new Error(`job ${jobId} completed without an output`);
  return [jobId, owner, 'completed', first.key, first.content_type, null, false, outcome.keepSeconds, JSON.stringify(outcome.outputs)];
}

/**
 * The requests' indexes in rounds where no job appears twice (one UPDATE ... FROM per round: a row
 * joined to two inputs would take one of them, unspecified which). Nearly always one round.
 */
function distinctJobRounds(requests: readonly FinishRequest[]): number[][] {
  const rounds: Array<{ ids: Set<string>; indexes: number[] }> = [];
  requests.forEach((request, index) => {
    const id = request.jobId.toLowerCase();
    let round = rounds.find((r) => !r.ids.has(id));
    if (!round) rounds.push((round = { ids: new Set(), indexes: [] }));
    round.ids.add(id);
    round.indexes.push(index);
  });
  return rounds.map((r) => r.indexes);
}

/** Every storage key of a job's outputs (the first is `output_key`; a job from before `outputs` has it alone). */
export function outputKeys(outputKey: string | null, outputs: readonly JobOutput[]): string[] {
  const keys = outputs.map((output) => output.key);
  if (outputKey !== null && !keys.includes(outputKey)) keys.unshift(outputKey);
  return keys;
}

function bySeq(jobs: JobEntity[]): JobEntity[] {
  return jobs.sort((a, b) => a.seq - b.seq);
}

export function jobFromRow(row: JobRow): JobEntity {
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
    input: row.input,
    metadata: row.metadata,
    outputs: row.outputs,
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
    nextCheckAt: row.next_check_at,
    upstreamChecks: row.upstream_checks,
    upstreamAt: row.upstream_at,
    upstreamDeadlineAt: row.upstream_deadline_at,
    upstreamQueuePosition: row.upstream_queue_position,
    outputExpiresAt: row.output_expires_at,
    outputDeletedAt: row.output_deleted_at,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
  } satisfies Omit<JobEntity, never>);
}
