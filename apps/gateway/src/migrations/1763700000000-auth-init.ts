import { MigrationInterface, QueryRunner } from 'typeorm';

export class AuthInit1763700000000 implements MigrationInterface {
  name = 'AuthInit1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."accounts" (
        "id" uuid PRIMARY KEY,
        "name" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE "auth"."api_keys" (
        "id" uuid PRIMARY KEY,
        "account_id" uuid NOT NULL REFERENCES "auth"."accounts"("id"),
        "name" text NOT NULL,
        "lookup_id" text NOT NULL UNIQUE,
        "key_hash" bytea NOT NULL,
        "last4" text NOT NULL,
        "scopes" text[] NOT NULL,
        "webhook_url" text,
        "webhook_secret" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "last_used_at" timestamptz,
        "revoked_at" timestamptz
      )`);
    await q.query(`CREATE INDEX "api_keys_by_account" ON "auth"."api_keys" ("account_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."api_keys"`);
    await q.query(`DROP TABLE "auth"."accounts"`);
  }
}
