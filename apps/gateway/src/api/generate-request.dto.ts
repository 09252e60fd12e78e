import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';
import { GENERATION_TYPES, GenerationType, MAX_PROMPT_LENGTH } from '@gen/contracts';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** Body of POST /api/v1/generate (spec: model, prompt, type, optional webhook_url). */
export class GenerateRequestDto {
  @IsString({ message: 'model must be a string' })
  @IsNotEmpty({ message: 'model is required' })
  @MaxLength(100)
  model!: string;

  @Transform(trim)
  @IsString({ message: 'prompt must be a string' })
  @IsNotEmpty({ message: 'prompt must not be empty' })
  @MaxLength(MAX_PROMPT_LENGTH, { message: `prompt must be at most ${MAX_PROMPT_LENGTH} characters` })
  prompt!: string;

  @IsIn(GENERATION_TYPES, { message: `type must be one of ${GENERATION_TYPES.join(', ')}` })
  type!: GenerationType;

  @IsOptional()
  @IsString({ message: 'webhook_url must be a string' })
  @MaxLength(2048, { message: 'webhook_url must be at most 2048 characters' })
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, require_host: true },
    { message: 'webhook_url must be an absolute http(s) URL' },
  )
  webhook_url?: string;
}
