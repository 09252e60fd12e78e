import { installSqlFunctions, restoreFunctionsOf } from '@gen/persistence';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { BILLING_FUNCTIONS as F } from '../config/billing.functions';
import { BillingKeyCaps1764870000000 } from './1764870000000-billing-key-caps';
import { BillingAccountChangeNotify1764930000000 } from './1764930000000-billing-account-change-notify';
import { BillingLowBalance1764980000000 } from './1764980000000-billing-low-balance';

/**
 * The PL/pgSQL functions move into `.sql` files beside the code that calls them (see
 * config/billing.functions.ts): each is installed from its file, the same function as before (the text
 * re-indented). The hashes pin the text this migration installs; a later change to a file comes
 * with its own migration.
 */
export class BillingFunctionsFromFiles1765200000000 implements MigrationInterface {
  name = 'BillingFunctionsFromFiles1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await installSqlFunctions(q, [
      [F.reserveBatch, 'aa3e556c37c76b89'],
      [F.settleBatch, '55a15153b636ec93'],
      [F.lowBalanceCrossing, '6d754b2a9e450389'],
      [F.announceAccountChange, '919018603d2bc5d4'],
    ]);
  }

  /** Each function as the migration that last shaped it wrote it. */
  async down(q: QueryRunner): Promise<void> {
    await restoreFunctionsOf(q, new BillingKeyCaps1764870000000(), ['reserve_batch', 'settle_batch']);
    await restoreFunctionsOf(q, new BillingAccountChangeNotify1764930000000(), ['announce_account_change']);
    await restoreFunctionsOf(q, new BillingLowBalance1764980000000(), ['low_balance_crossing']);
  }
}
