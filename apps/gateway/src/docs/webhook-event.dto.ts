import { ApiProperty } from '@nestjs/swagger';
import { GENERATION_TYPES, GenerationType } from '@gen/contracts';
import { GenerationOutputDto } from './generation.dto';

/** The body of every webhook request (the `webhooks` of the document; spec: Events, Body). */
export class WebhookEventDto {
  @ApiProperty({ enum: ['generation.completed', 'generation.failed'], description: 'Equal to the X-Service-Event header.', example: 'generation.completed' })
  event!: string;

  @ApiProperty({ format: 'uuid', description: 'The generation id, as POST /api/v1/generate returned it. The same on every retry.', example: '3f8e2a1c-7b4d-4e9a-9c61-0d5b2f7a8e13' })
  id!: string;

  @ApiProperty({ enum: ['completed', 'failed'], description: '`completed` for generation.completed, `failed` for generation.failed.', example: 'completed' })
  status!: string;

  @ApiProperty({ enum: GENERATION_TYPES, example: 'TEXT_TO_IMAGE' })
  type!: GenerationType;

  @ApiProperty({ example: 'pixel-flux-1' })
  model!: string;

  @ApiProperty({
    type: 'string',
    format: 'uri',
    nullable: true,
    description: 'Set only on success.',
    example: 'https://api.example.com/cdn/9b/9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png',
  })
  output_url!: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Credits debited; 0 on failure (refunded).', example: 4 })
  credits_charged!: number;

  @ApiProperty({ type: 'string', nullable: true, description: 'A user-facing message on failure; null on success.', example: null })
  error!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T17:40:00.112Z' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T17:40:02.512Z' })
  completed_at!: string;

  @ApiProperty({ type: [GenerationOutputDto], description: 'Every output, in order (`output_url` is the first); `[]` on failure. Added after the spec fields.' })
  outputs!: GenerationOutputDto[];

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The `input` as applied at submit.', example: { num_outputs: 1, aspect_ratio: '1:1' } })
  input!: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'Your metadata, as given at submit.', example: { order_id: 'A-1042' } })
  metadata!: Record<string, string>;
}
