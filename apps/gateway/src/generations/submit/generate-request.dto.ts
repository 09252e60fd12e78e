import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { GenerateRequestBody, GENERATION_TYPES, GenerationType, MAX_PROMPT_LENGTH } from '@gen/contracts';
import { MAX_WEBHOOK_URL_LENGTH } from '@gen/webhook-policy';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/**
 * Body of POST /api/v1/generate (spec: model, prompt, type, optional webhook_url; added: input,
 * metadata). Each field reports
 * one problem, the first that applies (http/validation.ts): missing, then its kind, then the rest.
 */
export class GenerateRequestDto implements GenerateRequestBody {
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

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      "The model's inputs (`inputs` of GET /api/v1/models/{id}): validated against its schema, defaults filled in; " +
      'each refused field is named in the 422 (`input.seed: must be an integer from 0 to 2147483647`). ' +
      'A media input (`format: "uri"`) takes an upload\'s `id` or `url` (POST /api/v1/uploads) or an https URL, which is ' +
      'fetched at submit (SSRF-safe, at most UPLOAD_MAX_MB, media only); the input as applied names the file by the URL the provider reads.',
    example: { num_outputs: 2, aspect_ratio: '16:9', seed: 7 },
  })
  // Checked against the model's schema by SubmitGeneration (libs/model-inputs): its rules depend on the model.
  @IsOptional()
  @IsObject({ message: "input must be an object of the model's inputs" })
  input?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 500 },
    maxProperties: 16,
    description:
      'Your own keys and values, stored and returned on the record and in the webhook body, never read by the service: ' +
      "at most 16 keys of up to 40 characters, string values of up to 500 characters (Stripe's rules).",
    example: { order_id: 'A-1042', user: 'u_77' },
  })
  @IsOptional()
  @IsObject({ message: 'metadata must be an object of string keys and string values' })
  metadata?: Record<string, string>;
}
