import { ApiProperty } from '@nestjs/swagger';

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
