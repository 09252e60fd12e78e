import type { DataSource } from 'typeorm';
import { BillingAccountsRepository } from '../accounts/billing-accounts.repository';
import type { BillingBatchSettings } from '../holds/billing-batch.settings';
import { HoldsRepository } from '../holds/holds.repository';
import { HoldsWriter } from '../holds/holds.writer';
import { LedgerRepository } from '../ledger/ledger.repository';

/** The named methods of `target`, bound to it. */
function methods<T extends object, K extends keyof T>(target: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, (target[key] as (...args: unknown[]) => unknown).bind(target)])) as Pick<T, K>;
}

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
    ...methods(holds, ['reserve', 'settle', 'onModuleDestroy']),
    ...methods(holdRows, ['findHold']),
    ...methods(accounts, ['findAccount', 'openAccount', 'adjust', 'setPlan']),
    ...methods(ledger, ['ledgerPage', 'usage', 'ledgerTotals']),
  };
}

export type BillingStore = ReturnType<typeof billingStore>;
