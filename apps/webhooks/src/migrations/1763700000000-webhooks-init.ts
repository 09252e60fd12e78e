import { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates the schema's migration baseline; deliveries and attempts come with the dispatcher. */
export class WebhooksInit1763700000000 implements MigrationInterface {
  name = 'WebhooksInit1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`COMMENT ON SCHEMA "webhooks" IS 'Owned by the webhooks service: deliveries and attempts'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`COMMENT ON SCHEMA "webhooks" IS NULL`);
  }
}
