import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';
import { GENERATION_TYPES, GenerationType, MAX_PROMPT_LENGTH } from '@gen/contracts';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** Body of POST /api/v1/generate (spec: model, prompt, type, optional webhook_url). */
export class GenerateRequestDto {
  @ApiProperty({ maxLength: 100, example: 'pixel-flux-1', description: 'A model id from GET /api/v1/models.' })
  @IsString({ message: 'model must be a string' })
  @IsNotEmpty({ message: 'model is required' })
  @MaxLength(100)
  model!: string;

  @ApiProperty({ minLength: 1, maxLength: MAX_PROMPT_LENGTH, example: 'a lighthouse at dusk', description: 'Trimmed; 1 to 4000 characters.' })
  @Transform(trim)
  @IsString({ message: 'prompt must be a string' })
  @IsNotEmpty({ message: 'prompt must not be empty' })
  @MaxLength(MAX_PROMPT_LENGTH, { message: `prompt must be at most ${MAX_PROMPT_LENGTH} characters` })
  prompt!: string;

  @ApiProperty({ enum: GENERATION_TYPES, description: "Must match the model's type." })
  @IsIn(GENERATION_TYPES, { message: `type must be one of ${GENERATION_TYPES.join(', ')}` })
  type!: GenerationType;

  @ApiPropertyOptional({
    format: 'uri',
    maxLength: 2048,
    description: "Where to POST the signed result; overrides the key's default webhook URL for this generation.",
  })
  @IsOptional()
  @IsString({ message: 'webhook_url must be a string' })
  @MaxLength(2048, { message: 'webhook_url must be at most 2048 characters' })
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, require_host: true },
    { message: 'webhook_url must be an absolute http(s) URL' },
  )
  webhook_url?: string;
}
