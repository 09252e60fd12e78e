import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `models.inputs` as json, not jsonb: jsonb keeps an object's keys in its own order (shortest
 * first), and the order of a schema's properties is the order customers see its inputs in (the
 * dashboard's form, the 422 listing a model's inputs). Schemas written before keep jsonb's order.
 */
export class GenerationModelInputsOrder1764830000002 implements MigrationInterface {
  name = 'GenerationModelInputsOrder1764830000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."models" DROP CONSTRAINT "models_inputs_check"`);
    await q.query(`ALTER TABLE "generation"."models" ALTER COLUMN "inputs" TYPE json USING "inputs"::json`);
    await q.query(`ALTER TABLE "generation"."models" ADD CONSTRAINT "models_inputs_check" CHECK ("inputs" IS NULL OR json_typeof("inputs") = 'object')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."models" DROP CONSTRAINT "models_inputs_check"`);
    await q.query(`ALTER TABLE "generation"."models" ALTER COLUMN "inputs" TYPE jsonb USING "inputs"::jsonb`);
    await q.query(`ALTER TABLE "generation"."models" ADD CONSTRAINT "models_inputs_check" CHECK ("inputs" IS NULL OR jsonb_typeof("inputs") = 'object')`);
  }
}
