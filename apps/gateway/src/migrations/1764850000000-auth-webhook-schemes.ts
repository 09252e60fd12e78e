import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each key's webhook signature scheme: `service` (the spec's X-Service-* headers, the default) or
 * `standard` (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature). A `standard` key
 * may rotate its secret with an overlap: the previous secret (encrypted like the current one) keeps
 * signing beside the new one until `webhook_previous_secret_until`. Both previous columns are set or
 * neither.
 */
export class AuthWebhookSchemes1764850000000 implements MigrationInterface {
  name = 'AuthWebhookSchemes1764850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "auth"."api_keys"
        ADD COLUMN "webhook_scheme" text NOT NULL DEFAULT 'service',
        ADD COLUMN "webhook_previous_secret" text,
        ADD COLUMN "webhook_previous_secret_until" timestamptz,
        ADD CONSTRAINT "api_keys_webhook_scheme_check" CHECK ("webhook_scheme" IN ('service', 'standard')),
        ADD CONSTRAINT "api_keys_webhook_previous_secret_check"
          CHECK (("webhook_previous_secret" IS NULL) = ("webhook_previous_secret_until" IS NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "auth"."api_keys"
        DROP CONSTRAINT "api_keys_webhook_previous_secret_check",
        DROP CONSTRAINT "api_keys_webhook_scheme_check",
        DROP COLUMN "webhook_previous_secret_until",
        DROP COLUMN "webhook_previous_secret",
        DROP COLUMN "webhook_scheme"`);
  }
}
