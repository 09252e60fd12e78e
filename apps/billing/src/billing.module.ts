import { DynamicModule, Module } from '@nestjs/common';
import { MetricsRegistry } from '@gen/observability';
import type { DataSource } from 'typeorm';
import { BILLING_BATCH_SETTINGS, BILLING_DB } from './billing.tokens';
import { KeyCapsController } from './caps/key-caps.controller';
import { KeyCapsRepository } from './caps/key-caps.repository';
import { KeyCapsService } from './caps/key-caps.service';
import type { BillingBatchSettings } from './holds/billing-batch.settings';
import { BillingController } from './holds/billing.controller';
import { BillingRepository } from './holds/billing.repository';
import { BillingService } from './holds/billing.service';
import { CreditMetrics } from './metrics/credit-metrics';
import { HoldStatsRepository } from './metrics/hold-stats.repository';
import { LedgerController } from './ledger/ledger.controller';
import { LedgerService } from './ledger/ledger.service';

@Module({})
export class BillingModule {
  /**
   * `dataSource` is the service's own, already migrated (see billingDatabase()); `batches` overrides
   * the group commit's defaults (DEFAULT_BILLING_BATCH_SETTINGS).
   */
  static register(dataSource: DataSource, batches: Partial<BillingBatchSettings> = {}): DynamicModule {
    return {
      module: BillingModule,
      controllers: [BillingController, LedgerController, KeyCapsController],
      providers: [
        { provide: BILLING_DB, useValue: dataSource },
        { provide: BILLING_BATCH_SETTINGS, useValue: batches },
        BillingRepository,
        BillingService,
        LedgerService,
        HoldStatsRepository,
        KeyCapsRepository,
        KeyCapsService,
        {
          provide: CreditMetrics,
          inject: [{ token: MetricsRegistry, optional: true }, HoldStatsRepository],
          // Without the observability module (the CLI) the metrics go to a private registry.
          useFactory: (registry: MetricsRegistry | undefined, stats: HoldStatsRepository) =>
            new CreditMetrics(registry ?? new MetricsRegistry('billing', { defaultMetrics: false }), stats),
        },
      ],
      exports: [BillingService, KeyCapsService],
    };
  }
}
