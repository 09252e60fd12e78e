import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Account events (`account.low_balance`, docs/guide/webhooks.md, "Account events"): deliveries with no
 * generation and not tests, sent to the account's keys' default webhook URLs. The event name check
 * takes the new name, the "no job" rule becomes "no job exactly for tests and account events", and
 * an index lists an account's account-event deliveries (the dashboard's log of them).
 */
export class WebhooksAccountEvents1764980000001 implements MigrationInterface {
  name = 'WebhooksAccountEvents1764980000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT "deliveries_event_name"`);
    await q.query(
      `ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_event_name" CHECK ("event" IN ('generation.completed', 'generation.failed', 'account.low_balance'))`,
    );
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT "deliveries_test_has_no_job"`);
    await q.query(
      `ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_test_has_no_job" CHECK (("job_id" IS NULL) = ("test" OR "event" = 'account.low_balance'))`,
    );
    await q.query(
      `CREATE INDEX "deliveries_account_events" ON "webhooks"."deliveries" ("account_id", "created_at") WHERE "job_id" IS NULL AND NOT "test"`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "webhooks"."attempts" WHERE "delivery_id" IN (SELECT "id" FROM "webhooks"."deliveries" WHERE "event" = 'account.low_balance')`);
    await q.query(`DELETE FROM "webhooks"."deliveries" WHERE "event" = 'account.low_balance'`);
    await q.query(`DROP INDEX "webhooks"."deliveries_account_events"`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT "deliveries_test_has_no_job"`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_test_has_no_job" CHECK ("test" = ("job_id" IS NULL))`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT "deliveries_event_name"`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_event_name" CHECK ("event" IN ('generation.completed', 'generation.failed'))`);
  }
}
