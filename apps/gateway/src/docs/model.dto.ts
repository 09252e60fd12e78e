import { ApiProperty } from '@nestjs/swagger';
import { GENERATION_TYPES, GenerationType, PLANS, PlanName } from '@gen/contracts';

export class ModelDto {
  @ApiProperty({ example: 'pixel-flux-1' })
  id!: string;

  @ApiProperty({ example: 'FLUX.1 [schnell] (fast image)' })
  name!: string;

  @ApiProperty({ enum: GENERATION_TYPES, example: 'TEXT_TO_IMAGE' })
  type!: GenerationType;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Credits charged on success.', example: 4 })
  credits!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Credits the account must have available to submit.', example: 4 })
  minimum_credits!: number;

  @ApiProperty({ description: 'True when POST /generate waits for the result (image models).', example: true })
  synchronous!: boolean;

  @ApiProperty({ enum: PLANS, description: 'Lowest plan that may use the model.', example: 'free' })
  min_plan!: PlanName;

  @ApiProperty({
    description: 'Who serves it: `replicate`, `fal`, `openai`, ... `demo` marks the built-in demo engines, which draw shapes from the prompt and are not AI models.',
    example: 'replicate',
  })
  provider!: string;

  @ApiProperty({ description: "What the model makes and how, in the operator's words ('' when none).", example: 'FLUX.1 [schnell] by Black Forest Labs on Replicate: 1 to 4 images in about a second.' })
  description!: string;

  @ApiProperty({
    description: "Whether a submit by this caller can use it now: enabled by the operator, its engine can run here, and the caller's plan allows it.",
    example: true,
  })
  available!: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why it is not available (disabled, not installed on this server, plan); null when available.',
    example: null,
  })
  unavailable_reason!: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The inputs a generation of this model may give (`input` of POST /generate): a JSON Schema object whose properties are ' +
      'strings, integers, numbers or booleans with `enum`, `minimum`/`maximum`, `minLength`/`maxLength`, `default`, `title`, ' +
      '`description`, and `format: "uri"` for media (an upload or an https URL). `properties` is empty ' +
      'when the model takes only a prompt. Unknown inputs are refused (`additionalProperties: false`).',
    example: {
      type: 'object',
      properties: {
        num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1, description: 'Number of images.' },
        aspect_ratio: { type: 'string', enum: ['1:1', '16:9', '9:16'], default: '1:1' },
        seed: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'Same seed and prompt, same image.' },
        image: { type: 'string', format: 'uri', description: 'Optional starting image.' },
      },
      additionalProperties: false,
    },
  })
  inputs!: Record<string, unknown>;

  @ApiProperty({
    type: [String],
    description: 'Numeric inputs the price is multiplied by: a generation costs `credits` × each value as applied (defaults included), rounded up to a whole credit. Empty: a fixed price.',
    example: ['num_outputs'],
  })
  price_multipliers!: string[];

  @ApiProperty({ description: 'How the price is computed, in words.', example: '4 credits × num_outputs (the values as applied, defaults included), rounded up to a whole credit' })
  pricing!: string;
}

export class ModelListDto {
  @ApiProperty({ type: [ModelDto] })
  data!: ModelDto[];
}
