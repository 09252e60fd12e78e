import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { GENERATION_TYPES, GenerationType, MAX_PROMPT_LENGTH } from '@gen/contracts';
import { MAX_WEBHOOK_URL_LENGTH } from '@gen/webhook-policy';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/**
 * Body of POST /api/v1/generate (spec: model, prompt, type, optional webhook_url). Each field reports
 * one problem, the first that applies (http/validation.ts): missing, then its kind, then the rest.
 */
export class GenerateRequestDto {
  @ApiProperty({ maxLength: 100, example: 'pixel-flux-1', description: 'A model id from GET /api/v1/models.' })
  @IsDefined({ message: 'model is required' })
  @IsString({ message: 'model must be a string' })
  @IsNotEmpty({ message: 'model must not be empty' })
  @MaxLength(100, { message: 'model must be at most 100 characters' })
  model!: string;

  @ApiProperty({ minLength: 1, maxLength: MAX_PROMPT_LENGTH, example: 'a lighthouse at dusk', description: 'Trimmed; 1 to 4000 characters.' })
  @Transform(trim)
  @IsDefined({ message: 'prompt is required' })
  @IsString({ message: 'prompt must be a string' })
  @IsNotEmpty({ message: 'prompt must not be empty' })
  @MaxLength(MAX_PROMPT_LENGTH, { message: `prompt must be at most ${MAX_PROMPT_LENGTH} characters` })
  prompt!: string;

  @ApiProperty({ enum: GENERATION_TYPES, description: "Must match the model's type." })
  @IsDefined({ message: 'type is required' })
  @IsIn(GENERATION_TYPES, { message: `type must be one of ${GENERATION_TYPES.join(', ')}` })
  type!: GenerationType;

  @ApiPropertyOptional({
    format: 'uri',
    maxLength: 2048,
    description: "Where to POST the signed result; overrides the key's default webhook URL for this generation.",
  })
  // Its form and destination are checked by validateWebhookUrl (@gen/webhook-policy), the same check
  // as a key's default URL in the dashboard: one validator, so the two never disagree.
  @IsOptional()
  @IsString({ message: 'webhook_url must be a string' })
  @MaxLength(MAX_WEBHOOK_URL_LENGTH, { message: `webhook_url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` })
  webhook_url?: string;
}
