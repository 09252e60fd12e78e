import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { WEBHOOKS_DB } from '../config/webhooks.tokens';

export interface DeliveryStats {
  /** Deliveries by status (pending, succeeded, failed), all time. */
  byStatus: Record<'pending' | 'succeeded' | 'failed', number>;
  /** Pending deliveries whose next attempt is overdue by more than 5 s (the dispatcher is behind or absent). */
  overdue: number;
  /** How late the most overdue pending delivery is, in seconds (0 when none). */
  oldestOverdueSeconds: number;
}

/** Read-only aggregates of the deliveries table for metrics (operator-wide; never on a request path). */
@Injectable()
export class DeliveryStatsRepository {
  constructor(@Inject(WEBHOOKS_DB) private readonly db: DataSource) {}

  async read(): Promise<DeliveryStats> {
    const rows = await sqlRows<{ status: string; n: string }>(this.db, `SELECT status, count(*) AS n FROM deliveries GROUP BY status`);
    const [late] = await sqlRows<{ overdue: string; oldest: string | null }>(
      this.db,
      `SELECT count(*) FILTER (WHERE next_attempt_at < now() - interval '5 seconds') AS overdue,
              COALESCE(EXTRACT(EPOCH FROM now() - min(next_attempt_at)), 0) AS oldest
       FROM deliveries WHERE status = 'pending' AND next_attempt_at < now()`,
    );
    const byStatus = { pending: 0, succeeded: 0, failed: 0 };
    for (const row of rows) if (row.status in byStatus) byStatus[row.status as keyof typeof byStatus] = Number(row.n);
    return { byStatus, overdue: Number(late.overdue), oldestOverdueSeconds: Math.max(0, Number(late.oldest ?? 0)) };
  }
}
