import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Password reset links: at most one open per user (its token's hash, never the token), with when it
 * stops working and when its mail was sent (one mail per address per window, docs/guide/dashboard.md).
 */
export class AuthPasswordResets1764870000002 implements MigrationInterface {
  name = 'AuthPasswordResets1764870000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."password_resets" (
        "user_id" uuid PRIMARY KEY REFERENCES "auth"."users"("id") ON DELETE CASCADE,
        "token_hash" bytea NOT NULL UNIQUE,
        "sent_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."password_resets"`);
  }
}
