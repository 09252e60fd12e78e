import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts have members (docs/guide/dashboard.md, "Members and roles"): `account_members` links a user to
 * an account with a role, replacing "one account per user". Every existing user becomes the owner of
 * the account they had. `users.account_id` stays, nullable, as the account sign-in opens (the one
 * last used), so deleting an account no longer deletes its users. A session belongs to a membership:
 * removing the member ends their sessions on that account in the same statement, and a session can
 * only be switched to an account its user is a member of. Invitations store their token's hash only.
 */
export class AuthAccountMembers1764960000000 implements MigrationInterface {
  name = 'AuthAccountMembers1764960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."account_members" (
        "account_id" uuid NOT NULL,
        "user_id" uuid NOT NULL,
        "role" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "account_members_pkey" PRIMARY KEY ("account_id", "user_id"),
        CONSTRAINT "account_members_role_check" CHECK ("role" IN ('owner', 'admin', 'developer', 'viewer')),
        CONSTRAINT "account_members_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "auth"."accounts"("id") ON DELETE CASCADE,
        CONSTRAINT "account_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "auth"."users"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "account_members_by_user" ON "auth"."account_members" ("user_id")`);
    await q.query(`INSERT INTO "auth"."account_members" ("account_id", "user_id", "role", "created_at")
                   SELECT "account_id", "id", 'owner', "created_at" FROM "auth"."users"`);

    await q.query(`ALTER TABLE "auth"."users" ALTER COLUMN "account_id" DROP NOT NULL`);
    await q.query(`ALTER TABLE "auth"."users" DROP CONSTRAINT "users_account_id_fkey"`);
    await q.query(`ALTER TABLE "auth"."users" ADD CONSTRAINT "users_account_id_fkey"
                   FOREIGN KEY ("account_id") REFERENCES "auth"."accounts"("id") ON DELETE SET NULL`);

    await q.query(`ALTER TABLE "auth"."sessions" ADD CONSTRAINT "sessions_membership_fkey"
                   FOREIGN KEY ("account_id", "user_id") REFERENCES "auth"."account_members"("account_id", "user_id") ON DELETE CASCADE`);

    await q.query(`
      CREATE TABLE "auth"."invitations" (
        "id" uuid PRIMARY KEY,
        "account_id" uuid NOT NULL REFERENCES "auth"."accounts"("id") ON DELETE CASCADE,
        "email" text NOT NULL,
        "email_key" text NOT NULL CHECK ("email_key" = lower("email_key")),
        "role" text NOT NULL CHECK ("role" IN ('owner', 'admin', 'developer', 'viewer')),
        "token_hash" bytea NOT NULL UNIQUE,
        "invited_by" uuid REFERENCES "auth"."users"("id") ON DELETE SET NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz NOT NULL,
        UNIQUE ("account_id", "email_key")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."invitations"`);
    await q.query(`ALTER TABLE "auth"."sessions" DROP CONSTRAINT "sessions_membership_fkey"`);
    // Sessions and users of accounts other than the user's own have no place in the old schema.
    await q.query(`DELETE FROM "auth"."sessions" s USING "auth"."users" u WHERE u."id" = s."user_id" AND u."account_id" IS DISTINCT FROM s."account_id"`);
    await q.query(`DELETE FROM "auth"."users" WHERE "account_id" IS NULL`);
    await q.query(`ALTER TABLE "auth"."users" DROP CONSTRAINT "users_account_id_fkey"`);
    await q.query(`ALTER TABLE "auth"."users" ADD CONSTRAINT "users_account_id_fkey"
                   FOREIGN KEY ("account_id") REFERENCES "auth"."accounts"("id") ON DELETE CASCADE`);
    await q.query(`ALTER TABLE "auth"."users" ALTER COLUMN "account_id" SET NOT NULL`);
    await q.query(`DROP TABLE "auth"."account_members"`);
  }
}
