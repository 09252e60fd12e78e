import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who made each API key (docs/guide/dashboard.md, "Members and roles"): removing a member can then
 * revoke the keys they made. Nullable, with no default and no foreign key: the previous release's
 * gateway inserts keys without it (and keys made before, or by an operator, have no dashboard
 * creator); a user deleted later leaves the id, which then names nobody. The index serves the removal's
 * lookup; api_keys is small (keys per account), so a plain CREATE INDEX inside the migration's
 * transaction holds its lock only briefly (CONCURRENTLY cannot run in one).
 */
export class AuthKeyCreators1766036000001 implements MigrationInterface {
  name = 'AuthKeyCreators1766036000001';

  async up(q: QueryRunner): Promise<void> {
    // The ALTER takes an ACCESS EXCLUSIVE lock, briefly (no rewrite); never wait long behind a long transaction for it.
    await q.query(`SET LOCAL lock_timeout = '5s'`);
    await q.query(`ALTER TABLE "auth"."api_keys" ADD COLUMN "created_by" uuid NULL`);
    // squawk's require-concurrent-index-creation is silenced for this one: the table is small and the
    // previous release only reads and writes single keys through it, which wait a moment at most.
    await q.query(`-- squawk-ignore require-concurrent-index-creation
      CREATE INDEX "api_keys_account_created_by" ON "auth"."api_keys" ("account_id", "created_by") WHERE "created_by" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "auth"."api_keys_account_created_by"`);
    await q.query(`ALTER TABLE "auth"."api_keys" DROP COLUMN "created_by"`);
  }
}
