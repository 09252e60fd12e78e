import { ApiProperty } from '@nestjs/swagger';
import { BATCH_LINE_OUTCOMES, BATCH_STATUSES, BatchLineOutcome, BatchStatus } from '@gen/contracts';
import { GenerationDto } from '../docs/generation.dto';

/*
 * The batches' response bodies for the OpenAPI document (the controllers return the contracts' types,
 * BatchView and BatchLineResult; these describe them field by field). The SDKs name them without `Dto`.
 */

const EXAMPLE_BATCH_ID = '5b7c2d1e-8f3a-4c6b-9d2e-1a0f3b4c5d6e';

export class BatchRequestCountsDto {
  @ApiProperty({ type: 'integer', description: 'Every line of the file: the sum of the others.', example: 3 })
  total!: number;
  @ApiProperty({ type: 'integer', description: 'Refused by the check at creation (`invalid_lines: "skip"`); never charged.', example: 0 })
  invalid!: number;
  @ApiProperty({ type: 'integer', description: 'Not admitted yet: no credits held.', example: 0 })
  waiting!: number;
  @ApiProperty({ type: 'integer', description: 'Admitted (credits held), queued.', example: 0 })
  queued!: number;
  @ApiProperty({ type: 'integer', example: 0 })
  processing!: number;
  @ApiProperty({ type: 'integer', example: 3 })
  completed!: number;
  @ApiProperty({ type: 'integer', description: 'Its generation failed, or its credits could not be held (nothing charged).', example: 0 })
  failed!: number;
  @ApiProperty({ type: 'integer', example: 0 })
  canceled!: number;
  @ApiProperty({ type: 'integer', description: 'Not admitted within the completion window; never charged.', example: 0 })
  expired!: number;
}

export class BatchDto {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_BATCH_ID })
  id!: string;
  @ApiProperty({ enum: ['batch'], example: 'batch' })
  object!: 'batch';
  @ApiProperty({ enum: BATCH_STATUSES, description: '`canceling`: canceled, with admitted generations still running.', example: 'completed' })
  status!: BatchStatus;
  @ApiProperty({ description: 'As given at creation (`24h`, `90m`, `3600s`).', example: '24h' })
  completion_window!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T17:40:00.112Z' })
  created_at!: string;
  @ApiProperty({ format: 'date-time', description: 'The end of the completion window: lines not admitted by then are `expired`.', example: '2026-11-24T17:40:00.112Z' })
  expires_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When it reached `completed`, `canceled` or `expired`.', example: '2026-11-23T17:42:10.400Z' })
  finished_at!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  canceled_at!: string | null;
  @ApiProperty({ type: BatchRequestCountsDto })
  request_counts!: BatchRequestCountsDto;
  @ApiProperty({ type: 'integer', minimum: 0, description: "Credits charged so far for the batch's completed lines.", example: 12 })
  credits_charged!: number;
  @ApiProperty({ type: 'string', format: 'uri', nullable: true, description: "Where `batch.completed` goes (the request's `webhook_url`, else the key's default); null: nowhere.", example: null })
  webhook_url!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { run: 'catalogue-2026-11' } })
  metadata!: Record<string, string>;
}

export class BatchPageDto {
  @ApiProperty({ type: [BatchDto] })
  data!: BatchDto[];
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.', example: null })
  next_cursor!: string | null;
}

export class BatchLineErrorDto {
  @ApiProperty({ description: '`validation_error`, `insufficient_credits`, `generation_failed`, `canceled`, `expired`, ...', example: 'validation_error' })
  code!: string;
  @ApiProperty({ example: 'body: model: unknown model "fox-9". See GET /api/v1/models.' })
  message!: string;
}

/** One line of the results file (`completed`) or the errors file (every other outcome). */
export class BatchLineResultDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: "The line's number in the file, from 1.", example: 1 })
  line!: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'Null only for an invalid line whose `custom_id` could not be read.', example: 'shot-0001' })
  custom_id!: string | null;
  @ApiProperty({ enum: BATCH_LINE_OUTCOMES, example: 'completed' })
  outcome!: BatchLineOutcome;
  @ApiProperty({ type: GenerationDto, nullable: true, description: "The line's generation, once it was admitted." })
  generation!: GenerationDto | null;
  @ApiProperty({ type: BatchLineErrorDto, nullable: true, description: 'Why it did not complete; null when completed.' })
  error!: BatchLineErrorDto | null;
}
