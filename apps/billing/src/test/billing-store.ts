import { bindMethods } from '@gen/testing';
import type { DataSource } from 'typeorm';
import { BillingAccountsRepository } from '../accounts/billing-accounts.repository';
import type { BillingBatchSettings } from '../holds/billing-batch.settings';
import { HoldsRepository } from '../holds/holds.repository';
import { HoldsWriter } from '../holds/holds.writer';
import { LedgerRepository } from '../ledger/ledger.repository';

/** Every billing repository (and the holds writer) on one DataSource, as a billing replica has them, under one roof for specs. */
export function billingStore(db: DataSource, batches?: Partial<BillingBatchSettings>) {
  const holdRows = new HoldsRepository(db, batches);
  const holds = new HoldsWriter(holdRows, batches);
  const accounts = new BillingAccountsRepository(db);
  const ledger = new LedgerRepository(db);
  return {
    holds,
    holdRows,
    accounts,
    ledger,
    ...bindMethods(holds, ['reserve', 'settle', 'onModuleDestroy']),
    ...bindMethods(holdRows, ['findHold']),
    ...bindMethods(accounts, ['findAccount', 'openAccount', 'adjust', 'setPlan']),
    ...bindMethods(ledger, ['ledgerPage', 'usage', 'ledgerTotals']),
  };
}

export type BillingStore = ReturnType<typeof billingStore>;
