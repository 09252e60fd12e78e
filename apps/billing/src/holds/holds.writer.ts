import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { BatchQueue, isRefusedValue, Lane, LanedBatchQueue } from '@gen/persistence';
import { BILLING_BATCH_SETTINGS } from '../config/billing.tokens';
import { BillingBatchSettings, DEFAULT_BILLING_BATCH_SETTINGS } from './billing-batch.settings';
import { HoldsRepository, ReserveItem, ReserveOutcome, SettleItem, SettleOutcome } from './holds.repository';

/**
 * Group commit of holds: reserves and settles that arrive while a batch is being written go together
 * in the next one (HoldsRepository applies a batch in one statement); each call gets its own outcome.
 */
@Injectable()
export class HoldsWriter implements OnModuleDestroy {
  private readonly reserves: LanedBatchQueue<ReserveItem, ReserveOutcome>;
  private readonly settles: BatchQueue<SettleItem, SettleOutcome>;

  constructor(
    private readonly repository: HoldsRepository,
    @Optional() @Inject(BILLING_BATCH_SETTINGS) batches: Partial<BillingBatchSettings> | null = null,
  ) {
    const settings = { ...DEFAULT_BILLING_BATCH_SETTINGS, ...batches };
    // A batch PostgreSQL refuses for one item's value is run again item by item: only that item fails.
    this.reserves = new LanedBatchQueue((items) => this.repository.reserveBatch(items), { maxBatch: settings.reserveBatchMax, isolate: isRefusedValue });
    this.settles = new BatchQueue((items) => this.repository.settleBatch(items), { maxBatch: settings.settleBatchMax, isolate: isRefusedValue });
  }

  /**
   * Reserves `amount` for a job if at least `minimum` (and `amount`) is available and the hold keeps
   * the key (`keyId`) within its spending caps. Concurrent calls are applied in batches by
   * `reserve_batch`, one statement per batch, under the account rows' locks, so concurrent reserves
   * can never overdraw nor pass a cap; each call gets its own outcome. Reserving a job that has a
   * hold already changes nothing ('already-reserved'). A `background` hold (a batch line's) is
   * batched apart from the submits', which never wait behind it.
   */
  reserve(
    accountId: string,
    jobId: string,
    amount: number,
    minimum: number,
    modelId: string | null = null,
    keyId: string | null = null,
    lane: Lane = 'interactive',
  ): Promise<ReserveOutcome> {
    return this.reserves.push({ accountId, jobId, amount, minimum, modelId, keyId }, lane);
  }

  /**
   * Captures (success) or releases (failure, the refund) a job's hold, once; later calls change
   * nothing. Concurrent calls are applied in batches by `settle_batch`, one statement per batch.
   */
  settle(jobId: string, outcome: 'capture' | 'release', note: string | null): Promise<SettleOutcome> {
    return this.settles.push({ jobId, outcome, note });
  }

  /** Waits for every queued reserve and settle to be applied (before the DataSource closes). */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.reserves.drain(), this.settles.drain()]);
  }
}
