import { MigrationInterface, QueryRunner } from 'typeorm';

/** Dashboard sign-in: users (one account each), server-side sessions, and sign-in throttling. */
export class DashboardUsersSessions1764100000000 implements MigrationInterface {
  name = 'DashboardUsersSessions1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."users" (
        "id" uuid PRIMARY KEY,
        "account_id" uuid NOT NULL REFERENCES "auth"."accounts"("id") ON DELETE CASCADE,
        "email" text NOT NULL,
        "email_key" text NOT NULL UNIQUE CHECK ("email_key" = lower("email_key")),
        "password_hash" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "last_sign_in_at" timestamptz
      )`);
    await q.query(`CREATE INDEX "users_by_account" ON "auth"."users" ("account_id")`);
    await q.query(`
      CREATE TABLE "auth"."sessions" (
        "id" uuid PRIMARY KEY,
        "token_hash" bytea NOT NULL UNIQUE,
        "user_id" uuid NOT NULL REFERENCES "auth"."users"("id") ON DELETE CASCADE,
        "account_id" uuid NOT NULL,
        "csrf_token" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "last_seen_at" timestamptz NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "ip" text,
        "user_agent" text
      )`);
    await q.query(`CREATE INDEX "sessions_by_user" ON "auth"."sessions" ("user_id")`);
    await q.query(`CREATE INDEX "sessions_by_expiry" ON "auth"."sessions" ("expires_at")`);
    await q.query(`
      CREATE TABLE "auth"."sign_in_throttle" (
        "key" text PRIMARY KEY,
        "failures" integer NOT NULL DEFAULT 0 CHECK ("failures" >= 0),
        "last_attempt_at" timestamptz,
        "locked_until" timestamptz
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."sign_in_throttle"`);
    await q.query(`DROP TABLE "auth"."sessions"`);
    await q.query(`DROP TABLE "auth"."users"`);
  }
}
