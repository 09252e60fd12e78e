import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Request counters of the per-account rate limit, one row per (key, fixed window), shared by every
 * gateway replica. UNLOGGED: counters are written on every request and are worth nothing after a
 * crash (Postgres empties an unlogged table on crash recovery, which at worst grants a fresh window),
 * so they skip the WAL.
 */
export class AuthRateLimits1764000000000 implements MigrationInterface {
  name = 'AuthRateLimits1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE "auth"."rate_limit_windows" (
        "key" text NOT NULL,
        "window_start" timestamptz NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "hits" integer NOT NULL CHECK ("hits" > 0),
        PRIMARY KEY ("key", "window_start")
      )`);
    await q.query(`CREATE INDEX "rate_limit_windows_expiry" ON "auth"."rate_limit_windows" ("expires_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."rate_limit_windows"`);
  }
}
