import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Published events are deleted once their retention has passed (the outbox relay's pruning,
 * `OUTBOX_RETENTION_HOURS`): this index finds them, oldest first, without reading the table, which
 * until now kept every event ever published. Built CONCURRENTLY, outside a transaction, so that the
 * previous release's writes and publishes go on while it is built on a table that may be large; run
 * again after a failure, IF NOT EXISTS skips what was done (an index left invalid by an interrupted
 * build is dropped by `down` and built again). The previous release ignores it.
 */
export class BillingOutboxPublished1766400000000 implements MigrationInterface {
  name = 'BillingOutboxPublished1766400000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "outbox_published" ON "billing"."outbox" ("published_at") WHERE "published_at" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Not CONCURRENTLY: TypeORM undoes a migration inside a transaction whatever it says, and dropping
    // an index holds its lock only for the moment the catalogue changes.
    await q.query(`DROP INDEX IF EXISTS "billing"."outbox_published"`);
  }
}
