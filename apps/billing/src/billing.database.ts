import { MigrationsMode, openServiceDataSource, OutboxEventEntity, ServiceDatabaseOptions } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { BillingAccountEntity } from './accounts/billing-account.entity';
import { HoldEntity } from './holds/hold.entity';
import { LedgerEntryEntity } from './accounts/ledger-entry.entity';
import { BillingInit1763700000000 } from './migrations/1763700000000-billing-init';
import { BillingLedgerModels1764500000000 } from './migrations/1764500000000-billing-ledger-models';
import { BillingBatchFunctions1764720000000 } from './migrations/1764720000000-billing-batch-functions';
import { BillingKeyCaps1764870000000 } from './migrations/1764870000000-billing-key-caps';
import { BillingAccountChangeNotify1764930000000 } from './migrations/1764930000000-billing-account-change-notify';
import { BillingLowBalance1764980000000 } from './migrations/1764980000000-billing-low-balance';
import { BillingFunctionsFromFiles1765200000000 } from './migrations/1765200000000-billing-functions-from-files';
import { KeyCapEntity } from './caps/key-cap.entity';
import { BillingPayments1766000000000 } from './migrations/1766000000000-billing-payments';
import { BillingSubscriptions1766000000001 } from './migrations/1766000000001-billing-subscriptions';
import { BillingTopUps1766000000002 } from './migrations/1766000000002-billing-top-ups';
import { BillingOutboxPublished1766400000000 } from './migrations/1766400000000-billing-outbox-published';
import { BillingBatchWrites1766500000000 } from './migrations/1766500000000-billing-batch-writes';
import { AccountRestrictionEntity, CreditPackEntity, PlanPriceEntity, PurchaseEntity, SavedCardEntity, StripeCustomerEntity, StripeEventEntity, SubscriptionEntity, TopUpAttemptEntity, TopUpSettingsEntity } from './payments/payment-tables.entity';
import { KeySpendEntity } from './caps/key-spend.entity';

export const BILLING_SCHEMA = 'billing';

export function billingDatabaseOptions(url: string, poolSize?: number): ServiceDatabaseOptions {
  return {
    url,
    schema: BILLING_SCHEMA,
    entities: [BillingAccountEntity, HoldEntity, LedgerEntryEntity, KeyCapEntity, KeySpendEntity, OutboxEventEntity, CreditPackEntity, StripeCustomerEntity, PurchaseEntity, StripeEventEntity, AccountRestrictionEntity, PlanPriceEntity, SubscriptionEntity, SavedCardEntity, TopUpSettingsEntity, TopUpAttemptEntity],
    migrations: [
      BillingInit1763700000000,
      BillingLedgerModels1764500000000,
      BillingBatchFunctions1764720000000,
      BillingKeyCaps1764870000000,
      BillingAccountChangeNotify1764930000000,
      BillingLowBalance1764980000000,
      BillingFunctionsFromFiles1765200000000,
      BillingPayments1766000000000,
      BillingSubscriptions1766000000001,
      BillingTopUps1766000000002,
      BillingOutboxPublished1766400000000,
      BillingBatchWrites1766500000000,
    ],
    poolSize,
  };
}

/** Opens the billing schema's DataSource and applies its migrations. */
export function openBillingDatabase(url: string, poolSize?: number, migrations: MigrationsMode = 'run'): Promise<DataSource> {
  return openServiceDataSource(billingDatabaseOptions(url, poolSize), migrations);
}
