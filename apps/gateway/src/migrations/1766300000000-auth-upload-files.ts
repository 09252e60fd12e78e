import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * JSONL uploads (a batch's input file, docs/guide/batches.md): kept in the database, not the object
 * storage, whose keys name media only and whose objects the content host serves. A new table (raw SQL
 * only, no entity): the previous release's gateway never touches it; its janitor sweeps `uploads` only.
 */
export class AuthUploadFiles1766300000000 implements MigrationInterface {
  name = 'AuthUploadFiles1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."upload_files" (
        "id" text NOT NULL,
        "account_id" uuid NOT NULL,
        "content_type" text NOT NULL,
        "bytes" bigint NOT NULL,
        "content" bytea NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz NOT NULL,
        CONSTRAINT "upload_files_pkey" PRIMARY KEY ("id")
      )`);
    await q.query(`CREATE INDEX "upload_files_expires_at" ON "auth"."upload_files" ("expires_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."upload_files"`);
  }
}
