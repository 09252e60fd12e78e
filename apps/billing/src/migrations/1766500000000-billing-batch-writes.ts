import { installSqlFunctions, restoreFunctionsOf } from '@gen/persistence';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { BILLING_FUNCTIONS as F } from '../config/billing.functions';
import { BillingKeyCaps1764870000000 } from './1764870000000-billing-key-caps';

/**
 * `reserve_batch` and `settle_batch` write in bulk: the same arguments, the same rows returned and
 * the same rows left in every table, in a few statements per batch instead of four to seven per
 * item (one balance update per account, the ledger rows in one insert, one spend change per key).
 * Only the function bodies change, so the previous release calls them as before and a rollback of
 * the code alone keeps working.
 */
export class BillingBatchWrites1766500000000 implements MigrationInterface {
  name = 'BillingBatchWrites1766500000000';

  async up(q: QueryRunner): Promise<void> {
    await installSqlFunctions(q, [
      [F.reserveBatch, '2fef8b725c908143'],
      [F.settleBatch, 'cf928fa6026141ee'],
    ]);
  }

  /** Both as written before the files (1765200000000 installed the same text, re-indented). */
  async down(q: QueryRunner): Promise<void> {
    await restoreFunctionsOf(q, new BillingKeyCaps1764870000000(), ['reserve_batch', 'settle_batch']);
  }
}
