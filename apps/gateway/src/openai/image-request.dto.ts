import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_PROMPT_LENGTH } from '@gen/contracts';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export const RESPONSE_FORMATS = ['url', 'b64_json'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
/** OpenAI's own bound on `n`; a model's `n` input may allow fewer. */
export const MAX_IMAGES = 10;
/** Longest `user` kept: it goes to the generation's metadata, whose values are at most 500 characters. */
export const MAX_USER_LENGTH = 500;

/**
 * Body of POST /openai/v1/images/generations: OpenAI's Images API fields this service serves
 * (docs/guide/openai-compatible.md). Each message starts with the field's name: it is the error's `param`.
 */
export class OpenAiImageRequestDto {
  @ApiProperty({ maxLength: 100, example: 'pixel-flux-1', description: 'A model id from GET /openai/v1/models.' })
  @IsDefined({ message: 'model is required' })
  @IsString({ message: 'model must be a string' })
  @IsNotEmpty({ message: 'model must not be empty' })
  @MaxLength(100, { message: 'model must be at most 100 characters' })
  model!: string;

  @ApiProperty({ minLength: 1, maxLength: MAX_PROMPT_LENGTH, example: 'a lighthouse at dusk' })
  @Transform(trim)
  @IsDefined({ message: 'prompt is required' })
  @IsString({ message: 'prompt must be a string' })
  @IsNotEmpty({ message: 'prompt must not be empty' })
  @MaxLength(MAX_PROMPT_LENGTH, { message: `prompt must be at most ${MAX_PROMPT_LENGTH} characters` })
  prompt!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_IMAGES, default: 1, description: "Images to make; more than 1 only where the model maps `n` to an input." })
  @IsOptional()
  @IsInt({ message: 'n must be an integer' })
  @Min(1, { message: `n must be from 1 to ${MAX_IMAGES}` })
  @Max(MAX_IMAGES, { message: `n must be from 1 to ${MAX_IMAGES}` })
  n?: number;

  @ApiPropertyOptional({ example: '1024x1024', description: '`WIDTHxHEIGHT` or `auto`; the sizes a model takes are in its mapping.' })
  @IsOptional()
  @IsString({ message: 'size must be a string' })
  @MaxLength(20, { message: 'size must be at most 20 characters' })
  size?: string;

  @ApiPropertyOptional({ example: 'high', description: "Passed to the model's quality input where it has one; ignored otherwise." })
  @IsOptional()
  @IsString({ message: 'quality must be a string' })
  @MaxLength(40, { message: 'quality must be at most 40 characters' })
  quality?: string;

  @ApiPropertyOptional({ enum: RESPONSE_FORMATS, default: 'url' })
  @IsOptional()
  @IsIn(RESPONSE_FORMATS, { message: `response_format must be one of ${RESPONSE_FORMATS.join(', ')}` })
  response_format?: ResponseFormat;

  @ApiPropertyOptional({ maxLength: MAX_USER_LENGTH, description: "Your end user's id: kept in the generation's metadata as `openai_user`." })
  @IsOptional()
  @IsString({ message: 'user must be a string' })
  @MaxLength(MAX_USER_LENGTH, { message: `user must be at most ${MAX_USER_LENGTH} characters` })
  user?: string;
}
