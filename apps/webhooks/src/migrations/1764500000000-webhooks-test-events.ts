import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Test events (`POST /api/v1/webhooks/test`, the dashboard's "Send a test event"): deliveries with
 * `test` set and no generation, sent by the same dispatcher. At most one test of a key in progress
 * at a time, and the latest tests of a key listed by its account.
 */
export class WebhooksTestEvents1764500000000 implements MigrationInterface {
  name = 'WebhooksTestEvents1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "webhooks"."deliveries" ADD COLUMN "test" boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" ALTER COLUMN "job_id" DROP NOT NULL`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_test_has_no_job" CHECK ("test" = ("job_id" IS NULL))`);
    await q.query(`CREATE INDEX "deliveries_tests_by_key" ON "webhooks"."deliveries" ("account_id", "api_key_id", "created_at") WHERE "test"`);
    await q.query(
      `CREATE UNIQUE INDEX "deliveries_one_pending_test" ON "webhooks"."deliveries" ("api_key_id") WHERE "status" = 'pending' AND "test"`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "webhooks"."deliveries" WHERE "test"`);
    await q.query(`DROP INDEX "webhooks"."deliveries_one_pending_test"`);
    await q.query(`DROP INDEX "webhooks"."deliveries_tests_by_key"`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT "deliveries_test_has_no_job"`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" ALTER COLUMN "job_id" SET NOT NULL`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP COLUMN "test"`);
  }
}
