import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Batches (docs/design/batches.md): `batches` and their `batch_lines`, which the feeder admits as jobs
 * when the account's parallel slots are free, and `models.batch_credits` (a model's batch price; the two demo image models get the seed catalogue's).
 * A line's `outcome` is its job's once final, copied by the feeder so that counts read lines, not jobs.
 * Expand only: new tables and a nullable column the previous release neither reads nor writes. Jobs
 * get no batch column: a line names its job (`batch_lines.job_id`), so a submit's statements are unchanged.
 */
export class GenerationBatches1766300000000 implements MigrationInterface {
  name = 'GenerationBatches1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."models" ADD COLUMN "batch_credits" integer`);
    // The two demo image models get the batch price the seed catalogue gives them, unless an operator set one.
    await q.query(`
      UPDATE "generation"."models" AS m SET "batch_credits" = s."batch_credits"
      FROM (VALUES ('pixel-flux-1', 2), ('pixel-flux-1-hd', 6)) AS s ("id", "batch_credits")
      WHERE m."id" = s."id" AND m."engine"->>'engine' = 'image' AND m."batch_credits" IS NULL`);
    await q.query(`
      CREATE TABLE "generation"."batches" (
        "id" uuid PRIMARY KEY,
        "account_id" uuid NOT NULL,
        "api_key_id" uuid NOT NULL,
        "plan" text NOT NULL,
        "parallel_limit" integer NOT NULL,
        "status" text NOT NULL DEFAULT 'receiving'
          CHECK ("status" IN ('receiving', 'in_progress', 'canceling', 'completed', 'canceled', 'expired')),
        "completion_window" text NOT NULL,
        "completion_window_seconds" integer NOT NULL,
        "expires_at" timestamptz,
        "total_lines" integer NOT NULL,
        "webhook_url" text,
        "metadata" jsonb NOT NULL DEFAULT '{}',
        "catalogue_version" text,
        "final_counts" jsonb,
        "credits_charged" bigint,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "sealed_at" timestamptz,
        "canceled_at" timestamptz,
        "finished_at" timestamptz
      )`);
    // The account's batches, newest first (list), and the feeder's running ones, oldest first.
    await q.query(`CREATE INDEX "batches_by_account" ON "generation"."batches" ("account_id", "created_at" DESC, "id" DESC)`);
    await q.query(`CREATE INDEX "batches_running" ON "generation"."batches" ("sealed_at") WHERE "status" IN ('in_progress', 'canceling')`);
    await q.query(`CREATE INDEX "batches_receiving" ON "generation"."batches" ("created_at") WHERE "status" = 'receiving'`);
    await q.query(`
      CREATE TABLE "generation"."batch_lines" (
        "batch_id" uuid NOT NULL REFERENCES "generation"."batches" ("id") ON DELETE CASCADE,
        "line" integer NOT NULL,
        "custom_id" text,
        "state" text NOT NULL CHECK ("state" IN ('waiting', 'admitting', 'admitted', 'invalid', 'failed', 'canceled', 'expired')),
        "job_id" uuid,
        "request" jsonb,
        "credits" integer,
        "error_code" text,
        "error_message" text,
        "outcome" text CHECK ("outcome" IN ('completed', 'failed', 'canceled')),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("batch_id", "line")
      )`);
    // The feeder's next lines of a batch, in line order; the lines it is admitting (counts, recovery).
    await q.query(`CREATE INDEX "batch_lines_waiting" ON "generation"."batch_lines" ("batch_id", "line") WHERE "state" = 'waiting'`);
    await q.query(`CREATE INDEX "batch_lines_admitting" ON "generation"."batch_lines" ("updated_at") WHERE "state" = 'admitting'`);
    // Admitted lines whose job's final outcome is not copied onto the line yet (few: those in flight and just finished).
    await q.query(`CREATE INDEX "batch_lines_unsettled" ON "generation"."batch_lines" ("batch_id") WHERE "state" = 'admitted' AND "outcome" IS NULL`);
    // A job's line: which jobs in flight are batch jobs (BATCH_MAX_IN_FLIGHT, a batch's end).
    await q.query(`CREATE UNIQUE INDEX "batch_lines_job" ON "generation"."batch_lines" ("job_id") WHERE "job_id" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "generation"."batch_lines"`);
    await q.query(`DROP TABLE "generation"."batches"`);
    await q.query(`ALTER TABLE "generation"."models" DROP COLUMN "batch_credits"`);
  }
}
