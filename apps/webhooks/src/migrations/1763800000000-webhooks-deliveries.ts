import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries (one per finished generation with a destination, plus redeliveries) and their attempts.
 * A delivery's body is stored once, as the exact bytes sent at every attempt.
 */
export class WebhooksDeliveries1763800000000 implements MigrationInterface {
  name = 'WebhooksDeliveries1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "webhooks"."deliveries" (
        "id" text PRIMARY KEY,
        "event_id" text,
        "redelivery_of" text,
        "job_id" uuid NOT NULL,
        "account_id" uuid NOT NULL,
        "api_key_id" uuid NOT NULL,
        "event" text NOT NULL,
        "url" text NOT NULL,
        "url_source" text NOT NULL,
        "body" bytea NOT NULL,
        "status" text NOT NULL DEFAULT 'pending',
        "attempts_made" smallint NOT NULL DEFAULT 0,
        "next_attempt_at" timestamptz,
        "lease_token" uuid,
        "lease_until" timestamptz,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "finished_at" timestamptz,
        CONSTRAINT "deliveries_event_id_unique" UNIQUE ("event_id"),
        CONSTRAINT "deliveries_redelivery_of_fk" FOREIGN KEY ("redelivery_of") REFERENCES "webhooks"."deliveries"("id"),
        CONSTRAINT "deliveries_id_format" CHECK ("id" ~ '^wh_[0-9A-Za-z]{20,}$'),
        CONSTRAINT "deliveries_event_name" CHECK ("event" IN ('generation.completed', 'generation.failed')),
        CONSTRAINT "deliveries_url_source" CHECK ("url_source" IN ('request', 'key')),
        CONSTRAINT "deliveries_status" CHECK ("status" IN ('pending', 'succeeded', 'failed')),
        CONSTRAINT "deliveries_attempts_made" CHECK ("attempts_made" BETWEEN 0 AND 3),
        CONSTRAINT "deliveries_pending_is_scheduled" CHECK (("status" = 'pending') = ("next_attempt_at" IS NOT NULL)),
        CONSTRAINT "deliveries_origin" CHECK (("event_id" IS NULL) <> ("redelivery_of" IS NULL))
      )`);
    // The dispatcher's poll: pending deliveries by due time.
    await q.query(`CREATE INDEX "deliveries_due" ON "webhooks"."deliveries" ("next_attempt_at") WHERE "status" = 'pending'`);
    // The delivery log of one generation, always read with the account id.
    await q.query(`CREATE INDEX "deliveries_by_job" ON "webhooks"."deliveries" ("account_id", "job_id", "created_at")`);
    // At most one redelivery of a generation in progress at a time (two clicks make one).
    await q.query(
      `CREATE UNIQUE INDEX "deliveries_one_pending_redelivery" ON "webhooks"."deliveries" ("job_id") WHERE "status" = 'pending' AND "event_id" IS NULL`,
    );
    await q.query(`
      CREATE TABLE "webhooks"."attempts" (
        "delivery_id" text NOT NULL,
        "number" smallint NOT NULL,
        "started_at" timestamptz NOT NULL,
        "duration_ms" integer,
        "status_code" smallint,
        "error_class" text,
        "error" text,
        CONSTRAINT "attempts_pkey" PRIMARY KEY ("delivery_id", "number"),
        CONSTRAINT "attempts_delivery_fk" FOREIGN KEY ("delivery_id") REFERENCES "webhooks"."deliveries"("id") ON DELETE CASCADE,
        CONSTRAINT "attempts_number" CHECK ("number" BETWEEN 1 AND 3),
        CONSTRAINT "attempts_duration" CHECK ("duration_ms" IS NULL OR "duration_ms" >= 0)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "webhooks"."attempts"`);
    await q.query(`DROP TABLE "webhooks"."deliveries"`);
  }
}
