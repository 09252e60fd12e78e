import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';

export interface QueueStats {
  queued: number;
  processing: number;
  /** Age of the oldest queued job (0 when none). */
  oldestQueuedSeconds: number;
  /** Processing jobs whose lease has expired (their worker died; reclaim will requeue them). */
  expiredLeases: number;
  outboxPending: number;
  oldestOutboxSeconds: number;
}

/** Read-only aggregates for metrics, answered from the partial indexes on queued/processing/pending rows. */
@Injectable()
export class QueueStatsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  async read(): Promise<QueueStats> {
    const [row] = await sqlRows<Record<keyof QueueStats, string | number | null>>(
      this.db,
      `SELECT
         (SELECT count(*) FROM jobs WHERE status = 'queued') AS "queued",
         (SELECT count(*) FROM jobs WHERE status = 'processing') AS "processing",
         (SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0) FROM jobs WHERE status = 'queued') AS "oldestQueuedSeconds",
         (SELECT count(*) FROM jobs WHERE status = 'processing' AND lease_expires_at < now()) AS "expiredLeases",
         (SELECT count(*) FROM outbox WHERE published_at IS NULL) AS "outboxPending",
         (SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0) FROM outbox WHERE published_at IS NULL) AS "oldestOutboxSeconds"`,
    );
    return {
      queued: Number(row.queued),
      processing: Number(row.processing),
      oldestQueuedSeconds: Number(row.oldestQueuedSeconds),
      expiredLeases: Number(row.expiredLeases),
      outboxPending: Number(row.outboxPending),
      oldestOutboxSeconds: Number(row.oldestOutboxSeconds),
    };
  }
}
