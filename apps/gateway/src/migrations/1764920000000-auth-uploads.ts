import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Input media of generations (POST /api/v1/uploads, and media URLs fetched at submit): the object
 * in the storage, whose account it is, and when it stops being usable (the janitor then deletes both).
 */
export class AuthUploads1764920000000 implements MigrationInterface {
  name = 'AuthUploads1764920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."uploads" (
        "id" text PRIMARY KEY,
        "account_id" uuid NOT NULL REFERENCES "auth"."accounts"("id") ON DELETE CASCADE,
        "object_key" text NOT NULL UNIQUE,
        "content_type" text NOT NULL,
        "bytes" bigint NOT NULL,
        "source_url" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX "uploads_expires_at" ON "auth"."uploads" ("expires_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."uploads"`);
  }
}
