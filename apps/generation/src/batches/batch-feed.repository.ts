import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource, QueryRunner } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';
import { OutboxMessage, OutboxRepository } from '../outbox/outbox.repository';
import { BatchSlotLimits, batchSlots } from './batch-slots';
import { BATCH_COUNTS } from './batch-store.repository';
import { BatchRow, countsFromRow, CountsRow } from './batch-view';

/** Advisory lock keys (pg_advisory_xact_lock(key, hashtext(account))): 0x62617463 'batc' per account; 'batg' the deployment-wide cap. */
const ACCOUNT_LOCK = 1650553955;
const CAP_LOCK = 1650553959;

/** What a line carries to its admission (batch_lines.request: BatchLinePayload less line and customId). */
export interface LineRequest {
  model: string;
  prompt: string;
  type: string;
  input: Record<string, unknown>;
  metadata: Record<string, string>;
  credits: number;
  minimumCredits: number;
  webhookUrl: string | null;
}

/** A line the feeder admits (or admits again), with its batch. */
export interface AdmittingLine {
  batch: BatchRow;
  line: number;
  jobId: string;
  request: LineRequest;
}

/** The job of a line in flight: not yet final. */
const IN_FLIGHT_OF_BATCH = `EXISTS (SELECT 1 FROM jobs j JOIN batch_lines l ON l.job_id = j.id
  WHERE j.account_id = b.account_id AND j.status IN ('queued', 'processing') AND l.batch_id = b.id)`;
const LINES_PENDING = `EXISTS (SELECT 1 FROM batch_lines l WHERE l.batch_id = b.id AND l.state = 'waiting')
  OR EXISTS (SELECT 1 FROM batch_lines l WHERE l.state = 'admitting' AND l.batch_id = b.id)`;

/**
 * The feeder's statements (BatchFeeder): which lines to admit, their states as they are admitted, the
 * expiry of a batch's window, and its end written with its `batch.completed` event (the outbox).
 */
@Injectable()
export class BatchFeedRepository {
  constructor(
    @Inject(GENERATION_DB) private readonly db: DataSource,
    private readonly outbox: OutboxRepository,
  ) {}

  /** Accounts with a running batch, the oldest batch's first. */
  async runningAccounts(): Promise<string[]> {
    const rows = await sqlRows<{ account_id: string }>(
      this.db,
      `SELECT account_id FROM batches WHERE status IN ('in_progress', 'canceling') GROUP BY account_id ORDER BY min(sealed_at)`,
    );
    return rows.map((r) => r.account_id);
  }

  /**
   * Marks the account's next waiting lines `admitting` with a fresh job id, and commits: at most its
   * free slots (the slots the batch's parallel limit lends batches, batchSlots, less the account's jobs
   * queued or processing and lines being admitted; none while any job of the account is queued) and
   * what BATCH_MAX_IN_FLIGHT leaves.
   * Under the account's transaction lock and the cap's, so replicas never feed one account twice or
   * pass the cap together; oldest batch first, each in line order. Batch jobs in flight are read from
   * the admitted lines not settled yet (index batch_lines_unsettled: the jobs in flight and those
   * finished since the last pass), never from all of a deployment's jobs.
   */
  async takeLines(accountId: string, limits: BatchSlotLimits): Promise<AdmittingLine[]> {
    const { maxInFlight, keepFreePercent, maxLines } = limits;
    return this.db.transaction(async (tx) => {
      // Both in one round trip, always in this order (the account's, then the cap's).
      await tx.query(`SELECT pg_advisory_xact_lock($1, hashtext($2)), pg_advisory_xact_lock($3, 0)`, [ACCOUNT_LOCK, accountId, CAP_LOCK]);
      const [load] = await sqlRows<{ queued: string; processing: string; admitting: string; batch_in_flight: string }>(
        tx,
        `SELECT (SELECT count(*) FROM jobs WHERE account_id = $1 AND status = 'queued') AS queued,
                (SELECT count(*) FROM jobs WHERE account_id = $1 AND status = 'processing') AS processing,
                (SELECT count(*) FROM batch_lines l JOIN batches b ON b.id = l.batch_id WHERE l.state = 'admitting' AND b.account_id = $1) AS admitting,
                (SELECT count(*) FROM batch_lines WHERE state = 'admitting')
                  + (SELECT count(*) FROM batch_lines l JOIN jobs j ON j.id = l.job_id
                     WHERE l.state = 'admitted' AND l.outcome IS NULL AND j.status IN ('queued', 'processing'))
                  AS batch_in_flight`,
        [accountId],
      );
      // An interactive job waiting in the account's queue goes first: no line is admitted before it starts.
      if (Number(load.queued) > 0) return [];
      let accountBusy = Number(load.processing) + Number(load.admitting);
      let capLeft = Math.min(maxInFlight - Number(load.batch_in_flight), maxLines);
      const batches = await sqlRows<BatchRow>(
        tx,
        `SELECT * FROM batches WHERE account_id = $1 AND status = 'in_progress' AND expires_at > now() ORDER BY sealed_at, id`,
        [accountId],
      );
      const taken: AdmittingLine[] = [];
      for (const batch of batches) {
        const n = Math.min(batchSlots(batch.parallel_limit, keepFreePercent) - accountBusy, capLeft);
        if (n <= 0) break;
        const rows = await sqlRows<{ line: number; job_id: string; request: LineRequest }>(
          tx,
          `UPDATE batch_lines l SET state = 'admitting', job_id = gen_random_uuid(), updated_at = now()
           FROM (SELECT line FROM batch_lines WHERE batch_id = $1 AND state = 'waiting' ORDER BY line LIMIT $2) pick
           WHERE l.batch_id = $1 AND l.line = pick.line
           RETURNING l.line, l.job_id, l.request`,
          [batch.id, n],
        );
        rows.sort((a, b) => a.line - b.line);
        for (const row of rows) taken.push({ batch, line: row.line, jobId: row.job_id, request: row.request });
        accountBusy += rows.length;
        capLeft -= rows.length;
      }
      return taken;
    });
  }

  /**
   * Lines left `admitting` for longer than `staleMs` (their feeder died or lost its way): each taken
   * again by one replica (its clock restarted), with whether its job exists already.
   */
  async takeStale(staleMs: number, limit: number): Promise<Array<AdmittingLine & { jobExists: boolean }>> {
    const rows = await sqlRows<{ batch_id: string; line: number; job_id: string; request: LineRequest; job_exists: boolean }>(
      this.db,
      `UPDATE batch_lines l SET updated_at = now()
       FROM (SELECT batch_id, line FROM batch_lines WHERE state = 'admitting' AND updated_at < now() - $1 * interval '1 millisecond'
             ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED) stale
       WHERE l.batch_id = stale.batch_id AND l.line = stale.line
       RETURNING l.batch_id, l.line, l.job_id, l.request, EXISTS (SELECT 1 FROM jobs WHERE id = l.job_id) AS job_exists`,
      [staleMs, limit],
    );
    if (rows.length === 0) return [];
    const batches = await sqlRows<BatchRow>(this.db, `SELECT * FROM batches WHERE id = ANY($1::uuid[])`, [[...new Set(rows.map((r) => r.batch_id))]]);
    const byId = new Map(batches.map((b) => [b.id, b]));
    return rows.map((r) => ({ batch: byId.get(r.batch_id) as BatchRow, line: r.line, jobId: r.job_id, request: r.request, jobExists: r.job_exists }));
  }

  /**
   * The lines' jobs are admitted, in one statement; returns the job ids of those whose batch is
   * `canceling` by then (a cancel came meanwhile). A line no longer `admitting` is left as it is.
   */
  async markAdmitted(lines: ReadonlyArray<{ batch: { id: string }; line: number; jobId: string }>): Promise<Set<string>> {
    const rows = await sqlRows<{ job_id: string; status: string }>(
      this.db,
      `UPDATE batch_lines l SET state = 'admitted', updated_at = now()
       FROM unnest($1::uuid[], $2::int[], $3::uuid[]) AS a(batch_id, line, job_id), batches b
       WHERE l.batch_id = a.batch_id AND l.line = a.line AND l.job_id = a.job_id AND l.state = 'admitting' AND b.id = l.batch_id
       RETURNING l.job_id, b.status`,
      [lines.map((l) => l.batch.id), lines.map((l) => l.line), lines.map((l) => l.jobId)],
    );
    return new Set(rows.filter((r) => r.status === 'canceling').map((r) => r.job_id));
  }

  /** The line ends without a job (its hold refused, its model gone, its batch canceled): nothing charged. */
  async markEnded(batchId: string, line: number, jobId: string, state: 'failed' | 'canceled', code: string, message: string): Promise<void> {
    await sqlRows(
      this.db,
      `UPDATE batch_lines SET state = $4, error_code = $5, error_message = $6, updated_at = now()
       WHERE batch_id = $1 AND line = $2 AND job_id = $3 AND state = 'admitting'`,
      [batchId, line, jobId, state, code, message],
    );
  }

  /** The line goes back to waiting (its account's queue was full after all): admitted by a later pass, under a new job id. */
  async markWaiting(batchId: string, line: number, jobId: string): Promise<void> {
    await sqlRows(this.db, `UPDATE batch_lines SET state = 'waiting', job_id = NULL, updated_at = now() WHERE batch_id = $1 AND line = $2 AND job_id = $3 AND state = 'admitting'`, [
      batchId,
      line,
      jobId,
    ]);
  }

  /**
   * Copies the final outcome of finished batch jobs onto their lines (a line's price is its job's), so
   * that a batch's counts read its lines and join only the few jobs still running (batch-counts.sql).
   * Visits only admitted lines not settled yet: those in flight and those just finished.
   */
  async settleLines(): Promise<number> {
    const rows = await sqlRows(
      this.db,
      `UPDATE batch_lines l SET outcome = CASE WHEN j.status = 'completed' THEN 'completed' WHEN j.canceled_at IS NOT NULL THEN 'canceled' ELSE 'failed' END
       FROM jobs j WHERE l.state = 'admitted' AND l.outcome IS NULL AND j.id = l.job_id AND j.status IN ('completed', 'failed') RETURNING l.line`,
    );
    return rows.length;
  }

  /** Waiting lines of batches past their window: `expired`, never charged. */
  async expireLines(): Promise<number> {
    const rows = await sqlRows(
      this.db,
      `UPDATE batch_lines l SET state = 'expired', error_code = 'expired', error_message = 'The completion window ended before this line was admitted.', updated_at = now()
       FROM batches b WHERE b.status = 'in_progress' AND b.expires_at <= now() AND l.batch_id = b.id AND l.state = 'waiting' RETURNING l.line`,
    );
    return rows.length;
  }

  /** Running batches whose every line has an outcome (none waiting or being admitted, no job in flight). */
  async endable(): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.db,
      `SELECT b.id FROM batches b WHERE b.status IN ('in_progress', 'canceling') AND NOT (${LINES_PENDING}) AND NOT ${IN_FLIGHT_OF_BATCH}`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Ends the batch if every line has an outcome: its final status, counts and credits, and its
   * `batch.completed` event, in one transaction (the batch row locked: it ends once). Null when it
   * is not (or no longer) endable.
   */
  async end(batchId: string, event: (batch: BatchRow) => OutboxMessage, lease: { owner: string; leaseMs: number }): Promise<{ batch: BatchRow; event: OutboxMessage } | null> {
    return this.db.transaction(async (tx) => {
      const [locked] = await sqlRows<BatchRow>(tx, `SELECT * FROM batches WHERE id = $1 AND status IN ('in_progress', 'canceling') FOR UPDATE`, [batchId]);
      if (!locked) return null;
      const [pending] = await sqlRows<{ pending: boolean }>(tx, `SELECT (${LINES_PENDING}) OR ${IN_FLIGHT_OF_BATCH} AS pending FROM batches b WHERE b.id = $1`, [batchId]);
      if (pending.pending) return null;
      const [countsRow] = await sqlRows<CountsRow>(tx, BATCH_COUNTS, [batchId]);
      const { counts, creditsCharged } = countsFromRow(countsRow);
      const status = locked.canceled_at ? 'canceled' : counts.expired > 0 ? 'expired' : 'completed';
      const [ended] = await sqlRows<BatchRow>(
        tx,
        `UPDATE batches SET status = $2, finished_at = now(), final_counts = $3, credits_charged = $4 WHERE id = $1 RETURNING *`,
        [batchId, status, JSON.stringify(counts), creditsCharged],
      );
      const message = event(ended);
      await this.outbox.append(tx.queryRunner as QueryRunner, [message], lease);
      return { batch: ended, event: message };
    });
  }

  /**
   * Cancels a running batch of the account: `canceling`, its waiting lines `canceled`; returns the
   * ids of its admitted jobs still queued (the caller cancels them, refunded). Null: no such running batch.
   */
  async cancel(accountId: string, batchId: string): Promise<string[] | null> {
    return this.db.transaction(async (tx) => {
      const rows = await sqlRows(
        tx,
        `UPDATE batches SET status = 'canceling', canceled_at = now() WHERE id = $1 AND account_id = $2 AND status = 'in_progress' RETURNING id`,
        [batchId, accountId],
      );
      if (rows.length === 0) return null;
      await sqlRows(
        tx,
        `UPDATE batch_lines SET state = 'canceled', error_code = 'canceled', error_message = 'The batch was canceled before this line ran.', updated_at = now()
         WHERE batch_id = $1 AND state = 'waiting'`,
        [batchId],
      );
      return this.queuedJobs(tx, accountId, batchId);
    });
  }

  /** The batch's admitted jobs still queued (from the account's queue, which is short). */
  async queuedJobs(db: Parameters<typeof sqlRows>[0] = this.db, accountId: string, batchId: string): Promise<string[]> {
    const jobs = await sqlRows<{ id: string }>(
      db,
      `SELECT j.id FROM jobs j WHERE j.account_id = $1 AND j.status = 'queued'
         AND EXISTS (SELECT 1 FROM batch_lines l WHERE l.job_id = j.id AND l.batch_id = $2) ORDER BY j.seq`,
      [accountId, batchId],
    );
    return jobs.map((j) => j.id);
  }

  /** Batches never sealed after `olderThanMs` (the gateway died while sending them): deleted with their lines; nothing was held for them. */
  async deleteUnsealed(olderThanMs: number): Promise<number> {
    const rows = await sqlRows(this.db, `DELETE FROM batches WHERE status = 'receiving' AND created_at < now() - $1 * interval '1 millisecond' RETURNING id`, [olderThanMs]);
    return rows.length;
  }
}
