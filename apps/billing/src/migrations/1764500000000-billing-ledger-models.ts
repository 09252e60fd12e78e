import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The model of each hold and ledger row (the ledger, usage per model), and an index for usage over
 * a period (captures and releases of one account by time). Rows written before have no model (null).
 */
export class BillingLedgerModels1764500000000 implements MigrationInterface {
  name = 'BillingLedgerModels1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "billing"."holds" ADD COLUMN "model_id" text`);
    await q.query(`ALTER TABLE "billing"."ledger" ADD COLUMN "model_id" text`);
    await q.query(
      `CREATE INDEX "ledger_settlements_by_account_time" ON "billing"."ledger" ("account_id", "created_at") WHERE "kind" IN ('capture', 'release')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "billing"."ledger_settlements_by_account_time"`);
    await q.query(`ALTER TABLE "billing"."ledger" DROP COLUMN "model_id"`);
    await q.query(`ALTER TABLE "billing"."holds" DROP COLUMN "model_id"`);
  }
}
