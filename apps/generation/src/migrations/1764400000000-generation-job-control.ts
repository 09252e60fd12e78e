import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Job control (docs/guide/generations.md): cancellation (asked by the user, or by a `Cancel-After` deadline),
 * progress, and output retention (an expiry time set at completion, and when the janitor deleted
 * the file).
 */
export class GenerationJobControl1764400000000 implements MigrationInterface {
  name = 'GenerationJobControl1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "generation"."jobs"
        ADD COLUMN "canceled_at" timestamptz,
        ADD COLUMN "deadline_at" timestamptz,
        ADD COLUMN "progress" real CHECK ("progress" BETWEEN 0 AND 1),
        ADD COLUMN "output_expires_at" timestamptz,
        ADD COLUMN "output_deleted_at" timestamptz,
        ADD CONSTRAINT "jobs_canceled_is_failed" CHECK ("canceled_at" IS NULL OR "status" = 'failed')`);
    // Deadlines of unfinished jobs, and outputs still stored, are swept by the janitor.
    await q.query(`CREATE INDEX "jobs_deadline" ON "generation"."jobs" ("deadline_at") WHERE "status" IN ('queued', 'processing') AND "deadline_at" IS NOT NULL`);
    await q.query(`CREATE INDEX "jobs_output_expiry" ON "generation"."jobs" ("output_expires_at") WHERE "status" = 'completed' AND "output_deleted_at" IS NULL`);
    // The content host asks which job an output key belonged to (410 for an expired one).
    await q.query(`CREATE INDEX "jobs_output_key" ON "generation"."jobs" ("output_key") WHERE "output_key" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "generation"."jobs_output_key"`);
    await q.query(`DROP INDEX "generation"."jobs_output_expiry"`);
    await q.query(`DROP INDEX "generation"."jobs_deadline"`);
    await q.query(`
      ALTER TABLE "generation"."jobs"
        DROP CONSTRAINT "jobs_canceled_is_failed",
        DROP COLUMN "output_deleted_at",
        DROP COLUMN "output_expires_at",
        DROP COLUMN "progress",
        DROP COLUMN "deadline_at",
        DROP COLUMN "canceled_at"`);
  }
}
