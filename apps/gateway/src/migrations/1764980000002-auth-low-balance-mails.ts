import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The low-balance mails sent (docs/guide/limits.md, "Low-balance alerts"): one row per event and
 * recipient, written right after the mail left, so an event handled again (JetStream redelivers it
 * when a later mail of the same event failed) does not mail the same person twice. Raw SQL only
 * (no entity).
 */
export class AuthLowBalanceMails1764980000002 implements MigrationInterface {
  name = 'AuthLowBalanceMails1764980000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."low_balance_mails" (
        "event_id" uuid NOT NULL,
        "email_key" text NOT NULL,
        "account_id" uuid NOT NULL,
        "sent_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "low_balance_mails_pkey" PRIMARY KEY ("event_id", "email_key")
      )`);
    await q.query(`CREATE INDEX "low_balance_mails_sent_at" ON "auth"."low_balance_mails" ("sent_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."low_balance_mails"`);
  }
}
