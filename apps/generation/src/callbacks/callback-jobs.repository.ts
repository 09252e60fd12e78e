import { Inject, Injectable } from '@nestjs/common';
import type { JobStatus } from '@gen/contracts';
import { sqlRows } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';

/** What a callback needs to know of the job its token names. */
export interface CallbackTarget {
  status: JobStatus;
  modelId: string;
  /** The upstream job stored on ours (`replicate:<id>`, `fal:{...}`, `cog:<id>`); null before the submit answered. */
  upstreamRef: string | null;
}

/**
 * The one read of a provider callback. Unlike the customer-facing reads it takes no account id: the
 * caller is a provider, and the URL's token (a MAC over the job id, checked before this read) is what
 * proves it may ask about this job. Nothing here reaches a customer.
 */
@Injectable()
export class CallbackJobsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  async find(jobId: string): Promise<CallbackTarget | null> {
    const [row] = await sqlRows<{ status: JobStatus; model_id: string; upstream_ref: string | null }>(
      this.db,
      `SELECT status, model_id, upstream_ref FROM jobs WHERE id = $1`,
      [jobId],
    );
    return row ? { status: row.status, modelId: row.model_id, upstreamRef: row.upstream_ref } : null;
  }
}
