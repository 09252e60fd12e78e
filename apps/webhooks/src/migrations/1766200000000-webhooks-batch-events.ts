import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Batch events (`batch.completed`, docs/guide/webhooks.md, "Batch events"): deliveries with no
 * generation and not tests, sent to the batch's destination. The event name check takes the new name
 * and the "no job" rule takes batch events too; every existing row passes the wider rules.
 *
 * Outside a transaction, so that each check is swapped in one statement (dropped and added NOT VALID
 * together: no moment without it, a brief lock and no scan) and then validated in a statement of its
 * own, which scans the table without blocking the previous release's reads and writes. Run again after
 * a failure, every statement still applies.
 */
export class WebhooksBatchEvents1766200000000 implements MigrationInterface {
  name = 'WebhooksBatchEvents1766200000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT IF EXISTS "deliveries_event_name", ADD CONSTRAINT "deliveries_event_name" CHECK ("event" IN ('generation.completed', 'generation.failed', 'account.low_balance', 'batch.completed')) NOT VALID`,
    );
    await q.query(`ALTER TABLE "webhooks"."deliveries" VALIDATE CONSTRAINT "deliveries_event_name"`);
    await q.query(
      `ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT IF EXISTS "deliveries_test_has_no_job", ADD CONSTRAINT "deliveries_test_has_no_job" CHECK (("job_id" IS NULL) = ("test" OR "event" IN ('account.low_balance', 'batch.completed'))) NOT VALID`,
    );
    await q.query(`ALTER TABLE "webhooks"."deliveries" VALIDATE CONSTRAINT "deliveries_test_has_no_job"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "webhooks"."attempts" WHERE "delivery_id" IN (SELECT "id" FROM "webhooks"."deliveries" WHERE "event" = 'batch.completed')`);
    await q.query(`DELETE FROM "webhooks"."deliveries" WHERE "event" = 'batch.completed'`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT "deliveries_test_has_no_job"`);
    await q.query(
      `ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_test_has_no_job" CHECK (("job_id" IS NULL) = ("test" OR "event" = 'account.low_balance'))`,
    );
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT "deliveries_event_name"`);
    await q.query(
      `ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_event_name" CHECK ("event" IN ('generation.completed', 'generation.failed', 'account.low_balance'))`,
    );
  }
}
