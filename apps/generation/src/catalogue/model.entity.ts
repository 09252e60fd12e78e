import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import type { GenerationType, OpenAiImagesMapping, PlanName } from '@gen/contracts';
import type { InputsSchema } from '@gen/model-inputs';
import type { ModelStatus } from './catalogue';

/**
 * A catalogue model (docs/operations/providers.md). `engine` is its binding: `{"engine": "<kind>", ...settings}`.
 * Mirrors migrations 1764300000000 (generation-models), 1764880000000 (generation-model-labels) and
 * 1764830000001/2 (generation-model-inputs, -order), constraint names included.
 */
@Entity({ name: 'models' })
@Check('models_id_check', `"id" ~ '^[a-z0-9][a-z0-9._-]{0,99}$'`)
@Check('models_name_check', `length("name") BETWEEN 1 AND 200`)
@Check('models_type_check', `"type" IN ('TEXT_TO_IMAGE','TEXT_TO_VIDEO','TEXT_TO_AUDIO','TEXT_TO_3D')`)
@Check('models_credits_check', `"credits" >= 0`)
@Check('models_minimum_credits_check', `"minimum_credits" >= 0`)
@Check('models_min_plan_check', `"min_plan" IN ('free','lite','pro','enterprise')`)
@Check('models_status_check', `"status" IN ('active','disabled')`)
@Check('models_provider_check', `"provider" ~ '^[a-z0-9][a-z0-9._-]{0,39}$'`)
@Check('models_description_check', `length("description") <= 1000`)
@Check('models_inputs_check', `"inputs" IS NULL OR json_typeof("inputs") = 'object'`)
@Check('models_engine_check', `jsonb_typeof("engine") = 'object' AND jsonb_typeof("engine"->'engine') = 'string'`)
export class ModelEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'models_pkey' })
  id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  type!: GenerationType;

  @Column('integer')
  credits!: number;

  @Column('integer', { name: 'minimum_credits' })
  minimumCredits!: number;

  @Column('boolean')
  synchronous!: boolean;

  @Column('text', { name: 'min_plan' })
  minPlan!: PlanName;

  @Column('text')
  status!: ModelStatus;

  @Column('text')
  provider!: string;

  @Column('text')
  description!: string;

  @Column('jsonb')
  engine!: { engine: string } & Record<string, unknown>;

  /** The model's inputs (a JSON Schema object, libs/model-inputs); null: it takes none. json: its properties keep their order. */
  @Column('json', { nullable: true })
  inputs!: InputsSchema | null;

  /** Numeric inputs the price is multiplied by. */
  @Column('text', { name: 'price_multipliers', array: true, default: () => "'{}'" })
  priceMultipliers!: string[];

  /** How the OpenAI-compatible images route maps its fields to the inputs; null: not served there (migration 1766100000000). */
  @Column('json', { nullable: true })
  openai!: OpenAiImagesMapping | null;

  /** A batch line's price (1 to credits); null: `credits` (migration 1766300000000). */
  @Column('integer', { name: 'batch_credits', nullable: true })
  batchCredits!: number | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
