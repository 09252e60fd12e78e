import { Inject, Injectable } from '@nestjs/common';
import { OutboxStore, sqlRows } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';

export type { OutboxLease, OutboxMessage } from '@gen/persistence';

/** One event of a job as the operator's `jobs inspect` shows it. */
export interface OutboxRow {
  id: string;
  pattern: string;
  created_at: Date;
  published_at: Date | null;
  publish_attempts: number;
}

/**
 * The generation service's outbox (the shared `OutboxStore`: append in a job's transaction, claim,
 * mark, release), plus the operator's view of a job's events.
 */
@Injectable()
export class OutboxRepository extends OutboxStore {
  constructor(@Inject(GENERATION_DB) db: DataSource) {
    super(db);
  }

  /** A job's events, oldest first, published or not (the operator CLI's `jobs inspect`). */
  eventsOfJob(jobId: string): Promise<OutboxRow[]> {
    return sqlRows<OutboxRow>(
      this.db,
      `SELECT id, pattern, created_at, published_at, publish_attempts FROM outbox WHERE payload->'record'->>'id' = $1 ORDER BY created_at`,
      [jobId],
    );
  }
}
