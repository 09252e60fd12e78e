import { ApiProperty } from '@nestjs/swagger';
import { GENERATION_TYPES, GenerationType, JOB_STATUSES, JobStatus, PLANS, PlanName } from '@gen/contracts';
import { DASHBOARD_ONLY_CODES, ERROR_STATUS, ErrorCode } from '@gen/errors';

/*
 * The response bodies of the public API, as classes for @nestjs/swagger (the controllers return the
 * contracts' types; these describe the same shapes field by field for the OpenAPI document).
 */

/*
 * No examples on the error body's fields: each error response of each route has examples of its own
 * (what that route answers for that status, api-docs.decorators.ts), so one status's example never
 * shows under another.
 */
export class ErrorBodyDto {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS).filter((code) => !DASHBOARD_ONLY_CODES.includes(code as ErrorCode)), description: 'Machine-readable; each code has one HTTP status (402 has two: insufficient_credits, spending_cap_reached).' })
  code!: ErrorCode;

  @ApiProperty({ type: 'integer', description: 'The HTTP status, repeated.' })
  status!: number;

  @ApiProperty({ description: 'What went wrong, for a person to read.' })
  message!: string;

  @ApiProperty({ description: 'Equal to the X-Request-Id response header.' })
  request_id!: string;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ type: ErrorBodyDto })
  error!: ErrorBodyDto;
}

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

export class PlanLimitsDto {
  @ApiProperty({ type: 'integer', minimum: 0, example: 60 })
  requests_per_minute!: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 3 })
  parallel_tasks!: number;
}

export class CreditsDto {
  @ApiProperty({ enum: PLANS, example: 'pro' })
  plan!: PlanName;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Credits that can be reserved now.', example: 996 })
  available!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Credits reserved by jobs not yet finished.', example: 0 })
  held!: number;

  @ApiProperty({ type: PlanLimitsDto })
  limits!: PlanLimitsDto;
}

export class WebhookAttemptDto {
  @ApiProperty({ type: 'integer', minimum: 1 })
  number!: number;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Null while the attempt is in flight.' })
  duration_ms!: number | null;

  @ApiProperty({ enum: ['in_flight', 'succeeded', 'failed'] })
  outcome!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's HTTP status, when it answered." })
  status_code!: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    // null included: JSON Schema validators read `enum` strictly, whatever `nullable` says.
    enum: ['http_status', 'timeout', 'connection', 'forbidden_destination', 'no_secret', 'interrupted', null],
  })
  error_class!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'No answer within 5 s.' })
  error!: string | null;
}

export class WebhookDeliveryDto {
  @ApiProperty({ description: 'The X-Service-Delivery-Id header of every attempt.', example: 'wh_4fQ9mZ2xLr7TbN1cVw8KpD3s' })
  id!: string;

  @ApiProperty({ enum: ['generation.completed', 'generation.failed'] })
  event!: string;

  @ApiProperty({ format: 'uri', example: 'https://hooks.example.com/generation' })
  url!: string;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] })
  status!: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  attempts_made!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  max_attempts!: number;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null once finished.' })
  next_attempt_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  finished_at!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'For a redelivery, the id of the delivery whose body it resends.' })
  redelivery_of!: string | null;

  @ApiProperty({ description: 'A test event (POST /api/v1/webhooks/test): sent with `X-Service-Test: true`, belongs to no generation.' })
  test!: boolean;

  @ApiProperty({ type: [WebhookAttemptDto] })
  attempts!: WebhookAttemptDto[];
}

export class WebhookDeliveryListDto {
  @ApiProperty({ type: [WebhookDeliveryDto] })
  data!: WebhookDeliveryDto[];
}

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
