import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rate-limit windows hand out slices: `hits` becomes the hits leased to gateways (spent or not) and
 * `last_grant` the size of the latest slice, so the leasing statement can return the slice's range
 * (`hits - last_grant + 1` to `hits`) from the row it updated. A window may be at 0 (a slice given
 * back, or a lease refused at once).
 */
export class AuthRateLimitSlices1764710000000 implements MigrationInterface {
  name = 'AuthRateLimitSlices1764710000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "auth"."rate_limit_windows" DROP CONSTRAINT "rate_limit_windows_hits_check"`);
    await q.query(`ALTER TABLE "auth"."rate_limit_windows" ADD CONSTRAINT "rate_limit_windows_hits_check" CHECK ("hits" >= 0)`);
    await q.query(`ALTER TABLE "auth"."rate_limit_windows" ADD COLUMN "last_grant" integer NOT NULL DEFAULT 0 CHECK ("last_grant" >= 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "auth"."rate_limit_windows" DROP COLUMN "last_grant"`);
    await q.query(`DELETE FROM "auth"."rate_limit_windows" WHERE "hits" = 0`);
    await q.query(`ALTER TABLE "auth"."rate_limit_windows" DROP CONSTRAINT "rate_limit_windows_hits_check"`);
    await q.query(`ALTER TABLE "auth"."rate_limit_windows" ADD CONSTRAINT "rate_limit_windows_hits_check" CHECK ("hits" > 0)`);
  }
}
