import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A generation's webhook destination is resolved by the gateway at submit and comes with its event:
 * deliveries made from events record it as `url_source = 'job'`. Rows written before keep their
 * `request` or `key`. Additive, so a replica still running the previous version keeps working.
 */
export class WebhooksDestinationAtSubmit1764600000000 implements MigrationInterface {
  name = 'WebhooksDestinationAtSubmit1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT "deliveries_url_source"`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_url_source" CHECK ("url_source" IN ('job', 'request', 'key'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The job's destination was the request's URL or the key's default; which one is not known, and
    // nothing decides on it any more: `request` (the URL came with the job's request).
    await q.query(`UPDATE "webhooks"."deliveries" SET "url_source" = 'request' WHERE "url_source" = 'job'`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" DROP CONSTRAINT "deliveries_url_source"`);
    await q.query(`ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_url_source" CHECK ("url_source" IN ('request', 'key'))`);
  }
}
