import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { BILLING_DB } from '../config/billing.tokens';

export interface HoldStats {
  openHolds: number;
  heldCredits: number;
  oldestOpenHoldSeconds: number;
}

/** Read-only aggregates of open holds for metrics (the partial index on held rows answers them). */
@Injectable()
export class HoldStatsRepository {
  constructor(@Inject(BILLING_DB) private readonly db: DataSource) {}

  async read(): Promise<HoldStats> {
    const [row] = await sqlRows<{ open: string; credits: string | null; oldest: string | null }>(
      this.db,
      `SELECT count(*) AS open, COALESCE(sum(amount), 0) AS credits,
              COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0) AS oldest
       FROM holds WHERE status = 'held'`,
    );
    return { openHolds: Number(row.open), heldCredits: Number(row.credits), oldestOpenHoldSeconds: Number(row.oldest) };
  }
}
