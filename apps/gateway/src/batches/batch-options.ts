import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { ValidationError } from '@gen/errors';
import { MAX_WEBHOOK_URL_LENGTH } from '@gen/webhook-policy';

export const INVALID_LINES = ['reject', 'skip'] as const;
export type InvalidLines = (typeof INVALID_LINES)[number];

export const DEFAULT_COMPLETION_WINDOW = '24h';
const MIN_WINDOW_SECONDS = 60;
const MAX_WINDOW_SECONDS = 168 * 3600;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** `completion_window` in seconds: `<n>s`, `<n>m` or `<n>h`, from 60 s to 168 h (422 otherwise). */
export function completionWindowSeconds(window: string): number {
  const match = /^([1-9][0-9]{0,6})([smh])$/.exec(window);
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2]] : NaN;
  if (!(seconds >= MIN_WINDOW_SECONDS && seconds <= MAX_WINDOW_SECONDS)) {
    throw new ValidationError('completion_window must be a duration such as 24h, 90m or 3600s, from 60s to 168h');
  }
  return seconds;
}

/** The options of a batch, in the query of `POST /api/v1/batches` with a JSONL body. */
export class CreateBatchQueryDto {
  @ApiPropertyOptional({ example: '24h', default: DEFAULT_COMPLETION_WINDOW, description: 'How long the batch may take: `<n>s`, `<n>m` or `<n>h`, from 60s to 168h.' })
  @IsOptional()
  @IsString({ message: 'completion_window must be a string' })
  completion_window?: string;

  @ApiPropertyOptional({
    enum: INVALID_LINES,
    default: 'reject',
    description: '`reject`: any bad line refuses the whole file (422 naming the lines); `skip`: the good lines run, the bad ones are in the errors file as `invalid`.',
  })
  @IsOptional()
  @IsIn(INVALID_LINES, { message: `invalid_lines must be one of ${INVALID_LINES.join(', ')}` })
  invalid_lines?: InvalidLines;

  @ApiPropertyOptional({ format: 'uri', maxLength: MAX_WEBHOOK_URL_LENGTH, description: "Where `batch.completed` goes; else the API key's default webhook URL." })
  @IsOptional()
  @IsString({ message: 'webhook_url must be a string' })
  @MaxLength(MAX_WEBHOOK_URL_LENGTH, { message: `webhook_url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` })
  webhook_url?: string;
}

/** `POST /api/v1/batches` with `Content-Type: application/json`: a file uploaded before, and the options. */
export class CreateBatchRequestDto extends CreateBatchQueryDto {
  @ApiProperty({ example: 'upl_0123456789abcdef01234567', description: 'The `id` of a JSONL upload of this account (`POST /api/v1/uploads`, `Content-Type: application/jsonl`).' })
  @IsDefined({ message: 'input_file_id is required' })
  @IsString({ message: 'input_file_id must be a string' })
  @IsNotEmpty({ message: 'input_file_id is required' })
  input_file_id!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 500 },
    maxProperties: 16,
    description: "Your own keys and values, returned on the batch (the generation's rules: 16 keys of up to 40 characters, values of up to 500).",
    example: { run: 'catalogue-2026-11' },
  })
  @IsOptional()
  @IsObject({ message: 'metadata must be an object of string keys and string values' })
  metadata?: Record<string, string>;
}
