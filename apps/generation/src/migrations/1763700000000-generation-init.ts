import { MigrationInterface, QueryRunner } from 'typeorm';

export class GenerationInit1763700000000 implements MigrationInterface {
  name = 'GenerationInit1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "generation"."jobs" (
        "id" uuid PRIMARY KEY,
        "seq" bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        "account_id" uuid NOT NULL,
        "api_key_id" uuid NOT NULL,
        "model_id" text NOT NULL,
        "type" text NOT NULL CHECK ("type" IN ('TEXT_TO_IMAGE','TEXT_TO_VIDEO','TEXT_TO_AUDIO','TEXT_TO_3D')),
        "prompt" text NOT NULL,
        "status" text NOT NULL CHECK ("status" IN ('queued','processing','completed','failed')),
        "credits" integer NOT NULL CHECK ("credits" >= 0),
        "parallel_limit" integer NOT NULL CHECK ("parallel_limit" > 0),
        "webhook_url" text,
        "output_key" text,
        "output_content_type" text,
        "error" text,
        "attempts" integer NOT NULL DEFAULT 0,
        "lease_owner" text,
        "lease_expires_at" timestamptz,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "started_at" timestamptz,
        "completed_at" timestamptz,
        CONSTRAINT "jobs_final_has_completed_at" CHECK (("status" IN ('completed','failed')) = ("completed_at" IS NOT NULL)),
        CONSTRAINT "jobs_completed_has_output" CHECK ("status" <> 'completed' OR "output_key" IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX "jobs_by_account" ON "generation"."jobs" ("account_id", "seq" DESC)`);
    await q.query(`CREATE INDEX "jobs_queued" ON "generation"."jobs" ("account_id", "seq") WHERE "status" = 'queued'`);
    await q.query(`CREATE INDEX "jobs_processing" ON "generation"."jobs" ("account_id") WHERE "status" = 'processing'`);
    await q.query(`CREATE INDEX "jobs_lease" ON "generation"."jobs" ("lease_expires_at") WHERE "status" = 'processing'`);
    await q.query(`
      CREATE TABLE "generation"."account_slots" (
        "account_id" uuid PRIMARY KEY
      )`);
    await q.query(`
      CREATE TABLE "generation"."outbox" (
        "id" uuid PRIMARY KEY,
        "pattern" text NOT NULL,
        "payload" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "published_at" timestamptz,
        "publish_attempts" integer NOT NULL DEFAULT 0
      )`);
    await q.query(`CREATE INDEX "outbox_pending" ON "generation"."outbox" ("created_at") WHERE "published_at" IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "generation"."outbox"`);
    await q.query(`DROP TABLE "generation"."account_slots"`);
    await q.query(`DROP TABLE "generation"."jobs"`);
  }
}
