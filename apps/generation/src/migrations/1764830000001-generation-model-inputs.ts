import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each model declares its inputs (docs/guide/models.md, "Inputs"): `inputs`, a JSON Schema object of
 * the subset the service enforces (null: the model takes none), and `price_multipliers`, the numeric
 * inputs its price is multiplied by (docs/guide/models.md, "Prices"). Both checked by the CLI and the
 * catalogue reader (libs/model-inputs) before they are written.
 */
export class GenerationModelInputs1764830000001 implements MigrationInterface {
  name = 'GenerationModelInputs1764830000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."models" ADD "inputs" jsonb`);
    await q.query(`ALTER TABLE "generation"."models" ADD "price_multipliers" text array NOT NULL DEFAULT '{}'`);
    await q.query(`ALTER TABLE "generation"."models" ADD CONSTRAINT "models_inputs_check" CHECK ("inputs" IS NULL OR jsonb_typeof("inputs") = 'object')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."models" DROP CONSTRAINT "models_inputs_check"`);
    await q.query(`ALTER TABLE "generation"."models" DROP COLUMN "price_multipliers"`);
    await q.query(`ALTER TABLE "generation"."models" DROP COLUMN "inputs"`);
  }
}
