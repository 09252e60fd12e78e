import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { PreparedStatement, readSqlFile, readSqlStatement, retryOnConflict, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';
import type { JobEntity } from './job.entity';
import { JOB_COLUMN_NAMES, jobFromRow, JobRow } from './job-row';

/** One job to park (docs/design/jobs.md, "Waiting upstream"): its lease given up, its next check set. */
export interface Park {
  jobId: string;
  /** The worker that holds it now; the park changes nothing if it no longer does. */
  owner: string;
  /** From now until its next check (never later than its upstream deadline). */
  delayMs: number;
  /** Just submitted upstream: its upstream clock starts (`upstream_at`, and the deadline `totalMs` later). */
  submittedTotalMs: number | null;
  /** A check was made before this park (the cadence counts them). */
  checked: boolean;
  /** Progress the check read, if any. */
  progress: number | null;
  /** The job's place in the provider's queue the check read (null: none, or it left the queue). */
  queuePosition: number | null;
}

export type WakeOutcome = 'woken' | 'not-parked' | 'unknown';

/**
 * The statements of parked provider jobs and of per-binding limits. A parked job is `processing`
 * with no lease (`lease_owner` null) and a `next_check_at`: lease reclaim never sees it, the account's
 * parallel slots still count it, and any replica's poll scheduler may take it when it is due.
 */
@Injectable()
export class ParkedJobsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /**
   * Parks a batch of jobs (ParkedJobsWriter groups them); for each, false when its worker no longer
   * holds it (canceled meanwhile, or taken over). Asynchronous commit: a park lost in a database crash leaves the job leased to its worker, whose
   * lease then runs out, and lease reclaim parks it again (`reparkExpired`); the upstream reference
   * it depends on was stored synchronously before.
   */
  async parkBatch(items: readonly Park[]): Promise<boolean[]> {
    // Rows are locked in id order (as the heartbeat's index scan does), and a deadlock victim runs again.
    const rows = await retryOnConflict(() =>
      sqlRows<{ id: string }>(this.db, PARK_SQL, [
        items.map((i) => i.jobId),
        items.map((i) => i.owner),
        items.map((i) => Math.max(0, Math.round(i.delayMs))),
        items.map((i) => i.submittedTotalMs),
        items.map((i) => i.checked),
        items.map((i) => i.progress),
        items.map((i) => (i.queuePosition === null ? null : Math.max(0, Math.round(i.queuePosition)))),
      ]),
    );
    const parked = new Set(rows.map((r) => r.id.toLowerCase()));
    return items.map((i) => parked.has(i.jobId.toLowerCase()));
  }

  /**
   * Takes up to `limit` parked jobs that are due (oldest due first), leased to `owner` while it checks
   * them, skipping those another replica is taking right now (SKIP LOCKED) and those of the models in
   * `skipModels` (their binding is backing off). Asynchronous commit: a claim lost in a database crash
   * leaves the job parked and due, for the next claim.
   */
  async claimDue(owner: string, leaseMs: number, limit: number, skipModels: readonly string[]): Promise<JobEntity[]> {
    if (limit <= 0) return [];
    const rows = await sqlRows<JobRow>(this.db, CLAIM_DUE_SQL, [owner, leaseMs, limit, skipModels]);
    return rows.map(jobFromRow);
  }

  /** Makes a parked job due now (a provider's callback); see `WakeOutcome`. */
  async wake(jobId: string): Promise<WakeOutcome> {
    const rows = await sqlRows<{ parked: boolean }>(this.db, WAKE_SQL, [jobId]);
    if (rows.length === 0) return 'unknown';
    return rows[0].parked ? 'woken' : 'not-parked';
  }

  /**
   * A job with an upstream reference whose worker stopped heart-beating (it died while submitting,
   * checking or collecting): parked again, due now, instead of queued, so it is checked without a
   * worker and never submitted twice. Counted as an attempt, like a requeue.
   */
  async reparkExpired(jobId: string): Promise<boolean> {
    const rows = await sqlRows<unknown>(this.db,
      `UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, next_check_at = now(), attempts = attempts + 1
       WHERE id = $1 AND status = 'processing' AND lease_expires_at < now() AND upstream_ref IS NOT NULL RETURNING id`,
      [jobId],
    );
    return rows.length > 0;
  }

  /**
   * A slot of the binding for the job, unless `max` of its jobs are in flight already, over every
   * replica (function `acquire_binding_slot`, migration 1764810000000); true when the job holds one.
   */
  async acquireSlot(binding: string, jobId: string, max: number): Promise<boolean> {
    const [row] = await acquireSlot.rows(this.db, [binding, jobId, max]);
    return row.acquired;
  }

  /** Gives back the binding slots of jobs whose upstream job ended (or that never submitted). */
  async releaseSlots(jobIds: readonly string[]): Promise<void> {
    if (jobIds.length === 0) return;
    await sqlRows(this.db, `DELETE FROM binding_slots WHERE job_id = ANY($1::uuid[])`, [jobIds]);
  }

  /** Slots of jobs no longer processing (finished by a cancel, an operator, a crash before the release). */
  async sweepSlots(): Promise<number> {
    const rows = await sqlRows<unknown>(this.db,
      `DELETE FROM binding_slots s WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = s.job_id AND j.status = 'processing') RETURNING s.job_id`,
    );
    return rows.length;
  }

  /** Upstream jobs in flight per binding with slots, over every replica. */
  async slotsInUse(): Promise<Map<string, number>> {
    const rows = await sqlRows<{ binding: string; n: number }>(this.db,
      `SELECT s.binding, count(*)::int AS n FROM binding_slots s JOIN jobs j ON j.id = s.job_id AND j.status = 'processing' GROUP BY s.binding`,
    );
    return new Map(rows.map((r) => [r.binding, r.n]));
  }

  /**
   * Up to `want` request permits of the binding's current one-second window, over every replica;
   * none while the binding backs off after a `429` (then `backoffUntil` says until when).
   */
  async takePermits(binding: string, ratePerSecond: number | null, want: number): Promise<{ granted: number; backoffUntil: Date | null }> {
    const [row] = await takePermits.rows(this.db, [binding, ratePerSecond ?? 0, want]);
    return { granted: row.granted, backoffUntil: row.backoff_until };
  }

  /** The binding backs off for `ms` on every replica (a provider's `429`); an earlier, later end is kept. */
  async backOff(binding: string, ms: number): Promise<void> {
    await sqlRows(this.db,
      `INSERT INTO binding_state (binding, backoff_until) VALUES ($1, now() + ($2::int * interval '1 millisecond'))
       ON CONFLICT (binding) DO UPDATE SET backoff_until = GREATEST(COALESCE(binding_state.backoff_until, now()), EXCLUDED.backoff_until)`,
      [binding, Math.round(ms)],
    );
  }

  /** Bindings backing off now, with the end of their backoff. */
  async backingOff(): Promise<Map<string, Date>> {
    const rows = await sqlRows<{ binding: string; backoff_until: Date }>(this.db,
      `SELECT binding, backoff_until FROM binding_state WHERE backoff_until > now()`,
    );
    return new Map(rows.map((r) => [r.binding, r.backoff_until]));
  }

  /** Parked jobs per model (the metric of jobs waiting upstream). */
  async parkedByModel(): Promise<Map<string, number>> {
    const rows = await sqlRows<{ model_id: string; n: number }>(this.db,
      `SELECT model_id, count(*)::int AS n FROM jobs WHERE status = 'processing' AND next_check_at IS NOT NULL GROUP BY model_id`,
    );
    return new Map(rows.map((r) => [r.model_id, r.n]));
  }
}




const PARK_SQL = readSqlFile(join(__dirname, 'park-jobs.sql'));
const CLAIM_DUE_SQL = readSqlStatement(join(__dirname, 'claim-due-jobs.sql'), JOB_COLUMN_NAMES);
const WAKE_SQL = readSqlFile(join(__dirname, 'wake-job.sql'));

const acquireSlot = new PreparedStatement<{ acquired: boolean }>(
  'generation.acquire_binding_slot',
  `SELECT acquire_binding_slot($1::text, $2::uuid, $3::int) AS acquired`,
);

const takePermits = new PreparedStatement<{ granted: number; backoff_until: Date | null }>(
  'generation.take_binding_permits',
  `SELECT granted, backoff_until FROM take_binding_permits($1::text, $2::int, $3::int)`,
);
