import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each account's uploads per UTC day, bytes and files (docs/guide/limits.md, "Uploads per day"): the
 * daily quota of its plan is checked against it. Kept apart from `uploads`, whose rows the janitor
 * deletes when they expire (as soon as an hour or two after), so the day's count survives them. A
 * new table (raw SQL only, no entity): the previous release's gateway never touches it, and uploads
 * it takes are not counted.
 */
export class AuthUploadUsage1766036000003 implements MigrationInterface {
  name = 'AuthUploadUsage1766036000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."upload_usage" (
        "account_id" uuid NOT NULL,
        "day" date NOT NULL,
        "bytes" bigint NOT NULL DEFAULT 0,
        "files" integer NOT NULL DEFAULT 0,
        CONSTRAINT "upload_usage_pkey" PRIMARY KEY ("account_id", "day")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."upload_usage"`);
  }
}
