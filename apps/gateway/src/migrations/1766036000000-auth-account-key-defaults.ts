import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The spending caps every new dashboard key of an account gets (docs/guide/limits.md, "Spending
 * caps"; docs/guide/dashboard.md, "Members and roles"): so a developer, who cannot set caps, cannot
 * get around them by making a new key. Nullable columns without defaults: a catalogue-only change, and
 * the previous release's gateway, which neither reads nor writes them, keeps working beside it.
 */
export class AuthAccountKeyDefaults1766036000000 implements MigrationInterface {
  name = 'AuthAccountKeyDefaults1766036000000';

  async up(q: QueryRunner): Promise<void> {
    // The ALTER takes an ACCESS EXCLUSIVE lock, briefly (no rewrite); never wait long behind a long transaction for it.
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`
      ALTER TABLE "auth"."accounts"
        ADD COLUMN "default_key_cap_per_day" integer NULL,
        ADD COLUMN "default_key_cap_per_month" integer NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "auth"."accounts" DROP COLUMN "default_key_cap_per_day", DROP COLUMN "default_key_cap_per_month"`);
  }
}
