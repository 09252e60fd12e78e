import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';
import type { JobOutput } from './job.entity';

/**
 * The janitor's statements: jobs past their deadline, leases that ran out, outputs past their
 * retention. Each is safe with any number of replicas running it (guarded updates, SKIP LOCKED).
 */
@Injectable()
export class JobJanitorRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /** Unfinished jobs past their `Cancel-After` deadline, oldest deadline first. */
  async pastDeadline(limit: number): Promise<Array<{ id: string; account_id: string }>> {
    return sqlRows(this.db,
      `SELECT id, account_id FROM jobs WHERE status IN ('queued', 'processing') AND deadline_at <= now()
       ORDER BY deadline_at LIMIT $1`,
      [limit],
    );
  }

  /** Jobs whose worker stopped heart-beating: back to the queue, or failed after too many attempts. */
  async expiredLeases(limit: number): Promise<Array<{ id: string; attempts: number }>> {
    return this.db.query(
      `SELECT id, attempts FROM jobs WHERE status = 'processing' AND lease_expires_at < now()
       ORDER BY lease_expires_at LIMIT $1`,
      [limit],
    );
  }

  /** An expired lease's job back to the queue (only while its lease is still expired: one reclaimer wins). */
  async requeueExpired(jobId: string): Promise<boolean> {
    const rows = await sqlRows<unknown>(this.db,
      `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
       WHERE id = $1 AND status = 'processing' AND lease_expires_at < now() RETURNING id`,
      [jobId],
    );
    return rows.length > 0;
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
}

/** Every storage key of a job's outputs (the first is `output_key`; a job from before `outputs` has it alone). */
export function outputKeys(outputKey: string | null, outputs: readonly JobOutput[]): string[] {
  const keys = outputs.map((output) => output.key);
  if (outputKey !== null && !keys.includes(outputKey)) keys.unshift(outputKey);
  return keys;
}
