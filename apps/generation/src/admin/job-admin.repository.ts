import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import type { JobStatus } from '@gen/contracts';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';

export interface OperatorJobRow {
  id: string;
  account_id: string;
  model_id: string;
  type: string;
  status: JobStatus;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  error: string | null;
}

/**
 * Operator queries across accounts (the CLI's `jobs` commands). Not used on any request path:
 * customer reads go through JobReadsRepository, which always takes the account id.
 */
@Injectable()
export class JobAdminRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /** Jobs in a state for longer than `olderThanSeconds` (queued: since submission; processing: since start), oldest first. */
  list(options: { status?: JobStatus; olderThanSeconds?: number; accountId?: string; limit: number }): Promise<OperatorJobRow[]> {
    return sqlRows<OperatorJobRow>(
      this.db,
      `SELECT id, account_id, model_id, type, status, attempts, lease_owner, lease_expires_at, created_at, started_at, completed_at, error
       FROM jobs
       WHERE ($1::text IS NULL OR status = $1)
         AND ($2::uuid IS NULL OR account_id = $2)
         AND ($3::int IS NULL OR COALESCE(CASE WHEN status = 'processing' THEN started_at END, created_at) < now() - ($3::int * interval '1 second'))
       ORDER BY seq
       LIMIT $4`,
      [options.status ?? null, options.accountId ?? null, options.olderThanSeconds ?? null, options.limit],
    );
  }

  async find(jobId: string): Promise<OperatorJobRow | null> {
    const rows = await sqlRows<OperatorJobRow>(
      this.db,
      `SELECT id, account_id, model_id, type, status, attempts, lease_owner, lease_expires_at, created_at, started_at, completed_at, error
       FROM jobs WHERE id = $1`,
      [jobId],
    );
    return rows[0] ?? null;
  }
}
