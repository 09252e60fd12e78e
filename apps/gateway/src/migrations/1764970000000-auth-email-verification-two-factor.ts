import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-up email verification and TOTP two-factor sign-in (docs/guide/dashboard.md):
 * - users: when the email was verified (users who existed before count as verified: they signed up
 *   when no verification existed, and must not lose the right to create keys), the TOTP secret
 *   (encrypted), when it was confirmed, and the last time step used (a code is refused twice);
 * - accounts: whether every member must use two-factor sign-in;
 * - email_verifications: at most one open link per user (its token's hash), like password_resets;
 * - two_factor_recovery_codes: hashes of the one-time recovery codes;
 * - two_factor_challenges: the half-signed-in state between the password and the code.
 */
export class AuthEmailVerificationTwoFactor1764970000000 implements MigrationInterface {
  name = 'AuthEmailVerificationTwoFactor1764970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "auth"."users"
        ADD COLUMN "email_verified_at" timestamptz,
        ADD COLUMN "totp_secret" text,
        ADD COLUMN "totp_enabled_at" timestamptz,
        ADD COLUMN "totp_last_step" bigint`);
    await q.query(`UPDATE "auth"."users" SET "email_verified_at" = "created_at"`);
    await q.query(`ALTER TABLE "auth"."accounts" ADD COLUMN "require_two_factor" boolean NOT NULL DEFAULT false`);
    await q.query(`
      CREATE TABLE "auth"."email_verifications" (
        "user_id" uuid PRIMARY KEY REFERENCES "auth"."users"("id") ON DELETE CASCADE,
        "token_hash" bytea NOT NULL UNIQUE,
        "sent_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE "auth"."two_factor_recovery_codes" (
        "user_id" uuid NOT NULL REFERENCES "auth"."users"("id") ON DELETE CASCADE,
        "code_hash" bytea NOT NULL,
        "used_at" timestamptz,
        PRIMARY KEY ("user_id", "code_hash")
      )`);
    await q.query(`
      CREATE TABLE "auth"."two_factor_challenges" (
        "token_hash" bytea PRIMARY KEY,
        "user_id" uuid NOT NULL REFERENCES "auth"."users"("id") ON DELETE CASCADE,
        "failures" integer NOT NULL DEFAULT 0,
        "expires_at" timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX "two_factor_challenges_by_user" ON "auth"."two_factor_challenges" ("user_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."two_factor_challenges"`);
    await q.query(`DROP TABLE "auth"."two_factor_recovery_codes"`);
    await q.query(`DROP TABLE "auth"."email_verifications"`);
    await q.query(`ALTER TABLE "auth"."accounts" DROP COLUMN "require_two_factor"`);
    await q.query(`
      ALTER TABLE "auth"."users"
        DROP COLUMN "email_verified_at",
        DROP COLUMN "totp_secret",
        DROP COLUMN "totp_enabled_at",
        DROP COLUMN "totp_last_step"`);
  }
}
