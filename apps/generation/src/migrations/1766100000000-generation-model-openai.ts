import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A model may say how the OpenAI-compatible images route maps its fields to the model's inputs
 * (`openai`, docs/guide/openai-compatible.md); null: not served there. Expand only: a nullable
 * column the previous release neither reads nor writes. The two demo image models get the mapping
 * the seed catalogue gives them (each makes one size, one image), unless an operator set one.
 */
export class GenerationModelOpenai1766100000000 implements MigrationInterface {
  name = 'GenerationModelOpenai1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."models" ADD COLUMN "openai" json`);
    await q.query(`
      UPDATE "generation"."models" AS m SET "openai" = s."openai"::json
      FROM (VALUES
        ('pixel-flux-1', '{"sizes":["512x512"]}'),
        ('pixel-flux-1-hd', '{"sizes":["1024x1024"]}')
      ) AS s ("id", "openai")
      WHERE m."id" = s."id" AND m."engine"->>'engine' = 'image' AND m."openai" IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."models" DROP COLUMN "openai"`);
  }
}
