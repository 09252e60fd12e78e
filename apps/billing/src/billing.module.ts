import { DynamicModule, Module } from '@nestjs/common';
import { MetricsRegistry } from '@gen/observability';
import type { DataSource } from 'typeorm';
import { BILLING_BATCH_SETTINGS, BILLING_DB, BILLING_OUTBOX_SETTINGS } from './config/billing.tokens';
import { LowBalanceController } from './low-balance/low-balance.controller';
import { BillingOutboxRepository } from './low-balance/billing-outbox.repository';
import { LowBalanceRepository } from './low-balance/low-balance.repository';
import { LowBalanceService } from './low-balance/low-balance.service';
import { DEFAULT_BILLING_OUTBOX_SETTINGS, LowBalanceRelay } from './low-balance/low-balance-relay.service';
import { KeyCapsController } from './caps/key-caps.controller';
import { KeyCapsRepository } from './caps/key-caps.repository';
import { KeyCapsService } from './caps/key-caps.service';
import type { BillingBatchSettings } from './holds/billing-batch.settings';
import { BillingController } from './holds/billing.controller';
import { BillingAccountsRepository } from './accounts/billing-accounts.repository';
import { HoldsRepository } from './holds/holds.repository';
import { HoldsWriter } from './holds/holds.writer';
import { LedgerRepository } from './ledger/ledger.repository';
import { BillingService } from './holds/billing.service';
import { CreditMetrics } from './metrics/credit-metrics';
import { HoldStatsRepository } from './metrics/hold-stats.repository';
import { LedgerController } from './ledger/ledger.controller';
import { LedgerService } from './ledger/ledger.service';
import type { BillingPaymentsSettings } from '@gen/config';
import { PaymentsController } from './payments/payments.controller';
import { PaymentsRepository } from './payments/payments.repository';
import { PaymentEventsService } from './payments/payment-events.service';
import { PaymentsService } from './payments/payments.service';
import { RestrictionsReader } from './payments/restrictions.reader';
import { createStripeApi, PAYMENTS_SETTINGS, STRIPE_API } from './payments/stripe-api';
import { StripeEventsService } from './payments/stripe-events.service';
import { SubscriptionSweeper } from './payments/subscription-sweeper';
import { SubscriptionsRepository } from './payments/subscriptions.repository';
import { SubscriptionsService } from './payments/subscriptions.service';
import { TopUpsRepository } from './payments/top-ups.repository';
import { TopUpsService } from './payments/top-ups.service';

/** Without settings (tools, older callers): payments off. */
const NO_PAYMENTS: BillingPaymentsSettings = { provider: 'none', stripe: null, subscriptionGraceHours: 168, sweepMs: 60_000, topUpRetryMinutes: 360 };

@Module({})
export class BillingModule {
  /**
   * `dataSource` is the service's own, already migrated (see billingDatabase()); `batches` overrides
   * the group commit's defaults (DEFAULT_BILLING_BATCH_SETTINGS) and the outbox relay's. `outboxRelay`
   * false (the operator CLI, which has no consumers on its bus) leaves the outbox to the services'
   * relays: an event the CLI's adjustment causes waits in the table for them.
   */
  static register(
    dataSource: DataSource,
    batches: Partial<BillingBatchSettings> & { outboxPollMs?: number; outboxLeaseMs?: number; outboxRetentionHours?: number; payments?: BillingPaymentsSettings } = {},
    options: { outboxRelay?: boolean } = {},
  ): DynamicModule {
    const outbox = {
      pollMs: batches.outboxPollMs ?? DEFAULT_BILLING_OUTBOX_SETTINGS.pollMs,
      leaseMs: batches.outboxLeaseMs ?? DEFAULT_BILLING_OUTBOX_SETTINGS.leaseMs,
      retentionMs: batches.outboxRetentionHours !== undefined ? batches.outboxRetentionHours * 3_600_000 : DEFAULT_BILLING_OUTBOX_SETTINGS.retentionMs,
    };
    return {
      module: BillingModule,
      controllers: [BillingController, LedgerController, KeyCapsController, LowBalanceController, PaymentsController],
      providers: [
        { provide: BILLING_DB, useValue: dataSource },
        { provide: BILLING_BATCH_SETTINGS, useValue: batches },
        { provide: BILLING_OUTBOX_SETTINGS, useValue: outbox },
        { provide: PAYMENTS_SETTINGS, useValue: batches.payments ?? NO_PAYMENTS },
        { provide: STRIPE_API, useValue: createStripeApi(batches.payments ?? NO_PAYMENTS) },
        PaymentsRepository,
        RestrictionsReader,
        PaymentsService,
        PaymentEventsService,
        SubscriptionsRepository,
        SubscriptionsService,
        TopUpsRepository,
        TopUpsService,
        StripeEventsService,
        // The sweep runs in the services (not the operator CLI, whose billing has no relay either).
        ...(options.outboxRelay === false ? [] : [SubscriptionSweeper]),
        LowBalanceRepository,
        LowBalanceService,
        ...(options.outboxRelay === false ? [] : [BillingOutboxRepository, LowBalanceRelay]),
        BillingAccountsRepository,
        HoldsRepository,
        HoldsWriter,
        LedgerRepository,
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
      exports: [BillingService, KeyCapsService, LowBalanceService, PaymentsService, SubscriptionsService],
    };
  }
}
