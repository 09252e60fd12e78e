import { GENERATION_TYPES, IfGiven, IntBetween, PLANS, Rule } from '@gen/contracts';
import { Allow, IsIn, IsOptional } from 'class-validator';
import { MODEL_STATUSES } from './catalogue';

export const PROVIDER_LABEL = /^[a-z0-9][a-z0-9._-]{0,39}$/;
const MODEL_ID = /^[a-z0-9][a-z0-9._-]{0,99}$/;
export const MAX_DESCRIPTION = 1000;
const MAX_CREDITS = 1_000_000;

const oneOf = (values: readonly string[]) => ({ message: `$property must be one of ${values.join(', ')}` });
const isName = (value: unknown) => {
  const name = typeof value === 'string' ? value.trim() : '';
  return name.length >= 1 && name.length <= 200 && !/[\u0000-\u001f\u007f]/.test(name);
};
const isDescription = (value: unknown) => typeof value === 'string' && value.length <= MAX_DESCRIPTION && !/[\u0000-\u0009\u000b-\u001f\u007f]/.test(value);

/**
 * A model as operators write it (the catalogue file of `models sync`, `models add`): the API's
 * snake_case names, with the engine binding as one object. The binding (checked by its kind), the
 * inputs schema and the price multipliers (by `@gen/model-inputs`) are checked by `parseModelEntry`.
 */
export class ModelEntryDto {
  @Rule('modelId', (value) => typeof value === 'string' && MODEL_ID.test(value), 'must be 1 to 100 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit')
  id!: string;

  @Rule('name', isName, 'must be 1 to 200 printable characters')
  name!: string;

  @IsIn(GENERATION_TYPES, oneOf(GENERATION_TYPES))
  type!: (typeof GENERATION_TYPES)[number];

  @IntBetween(0, MAX_CREDITS)
  credits!: number;

  @IntBetween(0, MAX_CREDITS)
  minimum_credits!: number;

  /** A batch line's price, 1 to `credits` (checked against credits by `parseModelEntry`); default: `credits`. */
  @IsOptional()
  @IntBetween(1, MAX_CREDITS)
  batch_credits?: number | null;

  @Rule('isBoolean', (value) => typeof value === 'boolean', 'must be true or false')
  synchronous!: boolean;

  @IsIn(PLANS, oneOf(PLANS))
  min_plan!: (typeof PLANS)[number];

  /** Default: `active`. */
  @IsOptional()
  @IsIn(MODEL_STATUSES, oneOf(MODEL_STATUSES))
  status?: (typeof MODEL_STATUSES)[number] | null;

  /** Default: the engine kind's (`parseModelEntry`). */
  @IfGiven()
  @Rule('providerLabel', (value) => typeof value === 'string' && PROVIDER_LABEL.test(value), 'must be 1 to 40 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit')
  provider?: string;

  @IsOptional()
  @Rule('description', isDescription, `must be text of at most ${MAX_DESCRIPTION} characters (line breaks allowed, no other control characters)`)
  description?: string | null;

  /** `{"engine": "<kind>", ...settings}`: checked by the kind. */
  @Allow()
  engine!: unknown;

  /** A JSON Schema object, checked by `checkInputsSchema`. */
  @Allow()
  inputs?: unknown;

  /** Checked against the inputs by `checkPriceMultipliers`. */
  @Allow()
  price_multipliers?: unknown;

  /** How the OpenAI-compatible images route maps its fields to the inputs: checked by `checkOpenAiMapping`. */
  @Allow()
  openai?: unknown;
}
