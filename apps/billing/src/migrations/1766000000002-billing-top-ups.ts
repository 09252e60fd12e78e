import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Automatic top-ups (docs/operations/payments.md, "Automatic top-up"). New tables only:
 * - `saved_cards`: the card an account's last pack payment saved for off-session use;
 * - `top_up_settings`: the pack to buy when the balance crosses the low-balance threshold, and the
 *   back-off after a failure;
 * - `top_up_attempts`: one row per crossing (its low-balance event id, or a retry's key: unique),
 *   so one crossing never pays twice.
 */
export class BillingTopUps1766000000002 implements MigrationInterface {
  name = 'BillingTopUps1766000000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "billing"."saved_cards" (
        "account_id" uuid NOT NULL,
        "payment_method_id" text NOT NULL,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "saved_cards_pkey" PRIMARY KEY ("account_id")
      )`);
    await q.query(`
      CREATE TABLE "billing"."top_up_settings" (
        "account_id" uuid NOT NULL,
        "pack_id" text NOT NULL,
        "failures" integer NOT NULL DEFAULT 0,
        "next_attempt_at" timestamptz,
        "last_error" text,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "top_up_settings_pkey" PRIMARY KEY ("account_id")
      )`);
    await q.query(`
      CREATE TABLE "billing"."top_up_attempts" (
        "id" uuid NOT NULL,
        "account_id" uuid NOT NULL,
        "crossing_key" text NOT NULL,
        "pack_id" text NOT NULL,
        "status" text NOT NULL,
        "payment_intent_id" text,
        "error" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "top_up_attempts_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "top_up_attempts_crossing_key_key" UNIQUE ("crossing_key")
      )`);
    await q.query(`CREATE INDEX "top_up_attempts_by_account" ON "billing"."top_up_attempts" ("account_id", "created_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "billing"."top_up_attempts"`);
    await q.query(`DROP TABLE "billing"."top_up_settings"`);
    await q.query(`DROP TABLE "billing"."saved_cards"`);
  }
}
