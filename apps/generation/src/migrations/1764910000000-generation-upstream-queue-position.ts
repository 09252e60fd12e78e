import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A parked provider job's place in its provider's queue, as its last status check read it (fal's
 * `queue_position` while `IN_QUEUE`): shown as the record's `queue_position` while it is processing
 * (docs/guide/generations.md, "Where it stands"). Null where the provider says none, or once the job left the queue.
 */
export class GenerationUpstreamQueuePosition1764910000000 implements MigrationInterface {
  name = 'GenerationUpstreamQueuePosition1764910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."jobs" ADD COLUMN "upstream_queue_position" integer`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."jobs" DROP COLUMN "upstream_queue_position"`);
  }
}
