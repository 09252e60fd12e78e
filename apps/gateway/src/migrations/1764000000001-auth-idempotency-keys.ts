import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Key records of POST /api/v1/generate: one row per (account, key), inserted before the
 * request runs (the unique key makes concurrent duplicates wait for the first), holding the job id
 * the request uses and, once it has answered, its response for replays. Kept 24 hours.
 */
export class AuthIdempotencyKeys1764000000001 implements MigrationInterface {
  name = 'AuthIdempotencyKeys1764000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."idempotency_keys" (
        "account_id" uuid NOT NULL,
        "key" text NOT NULL,
        "request_hash" bytea NOT NULL,
        "job_id" uuid NOT NULL,
        "state" text NOT NULL CHECK ("state" IN ('in_progress', 'completed')),
        "locked_until" timestamptz NOT NULL,
        "response_status" integer,
        "response_body" text,
        "response_location" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "expires_at" timestamptz NOT NULL,
        PRIMARY KEY ("account_id", "key"),
        CONSTRAINT "idempotency_completed_has_response"
          CHECK ("state" <> 'completed' OR ("response_status" IS NOT NULL AND "response_body" IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX "idempotency_keys_expiry" ON "auth"."idempotency_keys" ("expires_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."idempotency_keys"`);
  }
}
