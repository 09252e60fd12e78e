import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { AddBatchLinesRequest, CreateBatchRequest } from '@gen/contracts';
import { readSqlFile, readSqlStatement, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';
import type { JobEntity } from '../jobs/job.entity';
import { JOB_COLUMN_NAMES, jobFromRow, JobRow } from '../jobs/job-row';
import { BatchRow, countsFromRow, CountsRow } from './batch-view';

export const BATCH_COUNTS = readSqlFile(join(__dirname, 'batch-counts.sql'));
const LINE_PAGE = readSqlFile(join(__dirname, 'batch-line-page.sql'));
const JOBS_OF_ACCOUNT = readSqlStatement(
  join(__dirname, 'batch-jobs.sql'),
  JOB_COLUMN_NAMES,
);

/** One line of a results or errors page, before its job is read. */
export interface LinePageRow {
  line: number;
  custom_id: string | null;
  state: string;
  job_id: string | null;
  error_code: string | null;
  error_message: string | null;
  /** The outcome of the line's job once final (`completed`, `failed`, `canceled`); null before, or without a job. */
  job_outcome: 'completed' | 'failed' | 'canceled' | null;
}

export type SealOutcome = { kind: 'sealed' | 'already-sealed'; batch: BatchRow } | { kind: 'missing-lines'; received: number; total: number } | { kind: 'not-found' };

/**
 * The batches and their lines as the gateway hands them over and reads them (generation.batch.*).
 * Every read takes the account id; a batch still `receiving` is visible only to the messages that fill it.
 */
@Injectable()
export class BatchStoreRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /** A new batch, `receiving`; created again (the same id), it is kept as it was. */
  async create(request: CreateBatchRequest): Promise<BatchRow | null> {
    await sqlRows(
      this.db,
      `INSERT INTO batches (id, account_id, api_key_id, plan, parallel_limit, completion_window, completion_window_seconds, total_lines,
                            webhook_url, metadata, catalogue_version, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, date_trunc('milliseconds', now())) ON CONFLICT (id) DO NOTHING`,
      [
        request.batchId,
        request.accountId,
        request.apiKeyId,
        request.plan,
        request.parallelLimit,
        request.completionWindow,
        request.completionWindowSeconds,
        request.totalLines,
        request.webhookUrl,
        JSON.stringify(request.metadata),
        request.catalogueVersion ?? null,
      ],
    );
    return this.find(request.accountId, request.batchId, true);
  }

  /**
   * Stores a chunk of lines of a `receiving` batch (a line stored before is kept as it was: safe under
   * repeats and concurrent sends); null when the account has no such batch receiving. Returns the lines stored.
   */
  async addLines(request: AddBatchLinesRequest, total: number): Promise<number> {
    const lines = [
      ...request.lines.map((l) => ({
        line: l.line,
        customId: l.customId,
        state: 'waiting',
        credits: l.credits,
        request: JSON.stringify({
          model: l.model,
          prompt: l.prompt,
          type: l.type,
          input: l.input,
          metadata: l.metadata,
          credits: l.credits,
          minimumCredits: l.minimumCredits,
          webhookUrl: l.webhookUrl,
        }),
        code: null as string | null,
        message: null as string | null,
      })),
      ...request.invalid.map((l) => ({ line: l.line, customId: l.customId, state: 'invalid', credits: null, request: null, code: l.code, message: l.message })),
    ].filter((l) => l.line <= total);
    if (lines.length > 0) {
      await sqlRows(
        this.db,
        `INSERT INTO batch_lines (batch_id, line, custom_id, state, credits, request, error_code, error_message)
         SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::int[], $6::jsonb[], $7::text[], $8::text[])
         ON CONFLICT (batch_id, line) DO NOTHING`,
        [
          request.batchId,
          lines.map((l) => l.line),
          lines.map((l) => l.customId),
          lines.map((l) => l.state),
          lines.map((l) => l.credits),
          lines.map((l) => l.request),
          lines.map((l) => l.code),
          lines.map((l) => l.message),
        ],
      );
    }
    return this.received(request.batchId);
  }

  async received(batchId: string): Promise<number> {
    const [row] = await sqlRows<{ n: string }>(this.db, `SELECT count(*) AS n FROM batch_lines WHERE batch_id = $1`, [batchId]);
    return Number(row.n);
  }

  /** Starts a batch whose lines are all stored: `in_progress`, its window from now. Safe under repeats (one seal wins). */
  async seal(accountId: string, batchId: string): Promise<SealOutcome> {
    const batch = await this.find(accountId, batchId, true);
    if (!batch) return { kind: 'not-found' };
    if (batch.status !== 'receiving') return { kind: 'already-sealed', batch };
    const received = await this.received(batchId);
    if (received < batch.total_lines) return { kind: 'missing-lines', received, total: batch.total_lines };
    const rows = await sqlRows<BatchRow>(
      this.db,
      `UPDATE batches SET status = 'in_progress', sealed_at = now(), expires_at = now() + completion_window_seconds * interval '1 second'
       WHERE id = $1 AND account_id = $2 AND status = 'receiving' RETURNING *`,
      [batchId, accountId],
    );
    if (rows.length === 0) return { kind: 'already-sealed', batch: (await this.find(accountId, batchId, true)) as BatchRow };
    return { kind: 'sealed', batch: rows[0] };
  }

  /** The account's batch; one still `receiving` only when asked for (the messages that fill it). */
  async find(accountId: string, batchId: string, receiving = false): Promise<BatchRow | null> {
    const rows = await sqlRows<BatchRow>(
      this.db,
      `SELECT * FROM batches WHERE id = $1 AND account_id = $2 AND ($3 OR status <> 'receiving')`,
      [batchId, accountId, receiving],
    );
    return rows[0] ?? null;
  }

  /** The account's sealed batches, newest first, after the cursor's (created_at, id). */
  list(accountId: string, limit: number, before: { createdAt: string; id: string } | null): Promise<BatchRow[]> {
    return sqlRows<BatchRow>(
      this.db,
      `SELECT * FROM batches WHERE account_id = $1 AND status <> 'receiving'
         AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [accountId, before?.createdAt ?? null, before?.id ?? null, limit],
    );
  }

  /** The live counts of a running batch (a finished one carries its final counts). */
  async counts(batchId: string): Promise<ReturnType<typeof countsFromRow>> {
    const [row] = await sqlRows<CountsRow>(this.db, BATCH_COUNTS, [batchId]);
    return countsFromRow(row);
  }

  /** A page of the results or errors file (the caller checked the batch is the account's). */
  linePage(batchId: string, afterLine: number, limit: number, file: 'results' | 'errors'): Promise<LinePageRow[]> {
    return sqlRows<LinePageRow>(this.db, LINE_PAGE, [batchId, afterLine, limit, file]);
  }

  /** The account's jobs of these ids. */
  async jobs(accountId: string, ids: readonly string[]): Promise<JobEntity[]> {
    if (ids.length === 0) return [];
    return (await sqlRows<JobRow>(this.db, JOBS_OF_ACCOUNT, [accountId, ids])).map(jobFromRow);
  }
}
