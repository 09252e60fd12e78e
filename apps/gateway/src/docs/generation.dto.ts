import { ApiProperty } from '@nestjs/swagger';
import { GENERATION_TYPES, GenerationType, JOB_STATUSES, JobStatus } from '@gen/contracts';

/*
 * The response bodies of the public API, as classes for @nestjs/swagger (the controllers return the
 * contracts' types; these describe the same shapes field by field for the OpenAPI document).
 */

export class GenerationOutputDto {
  @ApiProperty({ format: 'uri', description: 'The file on the content host ({cdn_url}); answers 410 gone once its retention ended.', example: 'https://api.example.com/cdn/9b/9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png' })
  url!: string;

  @ApiProperty({ example: 'image/png' })
  content_type!: string;

  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, description: 'Size in bytes (null for outputs stored before sizes were recorded).', example: 48213 })
  bytes!: number | null;

  @ApiProperty({ type: 'integer', required: false, description: 'Pixels, where known (images, videos).', example: 1024 })
  width?: number;

  @ApiProperty({ type: 'integer', required: false, description: 'Pixels, where known (images, videos).', example: 1024 })
  height?: number;

  @ApiProperty({ type: 'number', required: false, description: 'Seconds, where known (videos, audio).' })
  duration_s?: number;
}

/** The generation record (GENERATION_RECORD_FIELDS in @gen/contracts): each field, in its order, with its type, nullability and format. */
export class GenerationDto {
  @ApiProperty({ format: 'uuid', example: '3f8e2a1c-7b4d-4e9a-9c61-0d5b2f7a8e13' })
  id!: string;

  @ApiProperty({ enum: JOB_STATUSES, example: 'completed' })
  status!: JobStatus;

  @ApiProperty({ enum: GENERATION_TYPES, example: 'TEXT_TO_IMAGE' })
  type!: GenerationType;

  @ApiProperty({ example: 'pixel-flux-1' })
  model!: string;

  @ApiProperty({ example: 'a lighthouse at dusk' })
  prompt!: string;

  @ApiProperty({
    type: 'string',
    format: 'uri',
    nullable: true,
    description: 'Set when completed: the output on the content host ({cdn_url}, `GET /cdn/{shard}/{file}`).',
    example: 'https://api.example.com/cdn/9b/9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png',
  })
  output_url!: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'The price when completed; 0 otherwise (failed jobs are refunded).', example: 4 })
  credits_charged!: number;

  @ApiProperty({ type: 'string', nullable: true, description: 'A user-facing message when failed.', example: null })
  error!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T17:40:00.112Z' })
  created_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-23T17:40:00.180Z' })
  started_at!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-23T17:40:02.512Z' })
  completed_at!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When it was canceled (POST .../cancel, or its Cancel-After deadline). A canceled generation is `failed`, refunded.',
    example: null,
  })
  canceled_at!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    description: "While queued: how many of the account's generations are ahead of it (0: it starts next). While processing: its place in the model provider's queue, where the provider reports one (0: it runs next there). Null otherwise.",
    example: null,
  })
  queue_position!: number | null;

  @ApiProperty({
    type: 'number',
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: 'While processing: 0 to 1 where the model reports progress (null where it does not); 1 once completed; null otherwise.',
    example: 1,
  })
  progress!: number | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'For a completed generation: when its output is deleted (OUTPUT_RETENTION_HOURS after completion, a week by default). ' +
      'output_url stays in the record and then answers 410 gone.',
    example: '2026-11-30T17:40:02.512Z',
  })
  output_expires_at!: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The `input` as applied at submit: checked against the model's `inputs`, its defaults filled in (`{}` for a model without inputs).",
    example: { num_outputs: 2, aspect_ratio: '1:1', seed: 7 },
  })
  input!: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Your own keys and values, as given at submit (`{}` when none).',
    example: { order_id: 'A-1042' },
  })
  metadata!: Record<string, string>;

  @ApiProperty({
    type: [GenerationOutputDto],
    description: 'Every output of a completed generation, in order (`output_url` is the first); `[]` otherwise.',
    example: [
      { url: 'https://api.example.com/cdn/9b/9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png', content_type: 'image/png', bytes: 48213, width: 1024, height: 1024 },
      { url: 'https://api.example.com/cdn/3c/3c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f.png', content_type: 'image/png', bytes: 47907, width: 1024, height: 1024 },
    ],
  })
  outputs!: GenerationOutputDto[];
}

export class GenerationPageDto {
  @ApiProperty({ type: [GenerationDto] })
  data!: GenerationDto[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last page.',
    example: 'MjAyNi0xMS0yM1QxNzo0MDowMC4xMTJafDNmOGUyYTFj',
  })
  next_cursor!: string | null;
}
