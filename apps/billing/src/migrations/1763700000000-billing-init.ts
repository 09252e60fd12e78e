import { MigrationInterface, QueryRunner } from 'typeorm';

export class BillingInit1763700000000 implements MigrationInterface {
  name = 'BillingInit1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "billing"."accounts" (
        "account_id" uuid PRIMARY KEY,
        "plan" text NOT NULL CHECK ("plan" IN ('free','lite','pro','enterprise')),
        "requests_per_minute" integer NOT NULL CHECK ("requests_per_minute" > 0),
        "parallel_tasks" integer NOT NULL CHECK ("parallel_tasks" > 0),
        "available" bigint NOT NULL DEFAULT 0 CHECK ("available" >= 0),
        "held" bigint NOT NULL DEFAULT 0 CHECK ("held" >= 0),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE "billing"."holds" (
        "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "account_id" uuid NOT NULL REFERENCES "billing"."accounts"("account_id"),
        "job_id" uuid NOT NULL UNIQUE,
        "amount" integer NOT NULL CHECK ("amount" >= 0),
        "status" text NOT NULL CHECK ("status" IN ('held','captured','released')),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "settled_at" timestamptz
      )`);
    await q.query(`CREATE INDEX "holds_open_by_account" ON "billing"."holds" ("account_id") WHERE "status" = 'held'`);
    await q.query(`
      CREATE TABLE "billing"."ledger" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "account_id" uuid NOT NULL REFERENCES "billing"."accounts"("account_id"),
        "kind" text NOT NULL CHECK ("kind" IN ('grant','adjustment','hold','capture','release')),
        "available_delta" integer NOT NULL,
        "held_delta" integer NOT NULL,
        "job_id" uuid,
        "note" text,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "ledger_by_account" ON "billing"."ledger" ("account_id", "id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "billing"."ledger"`);
    await q.query(`DROP TABLE "billing"."holds"`);
    await q.query(`DROP TABLE "billing"."accounts"`);
  }
}
