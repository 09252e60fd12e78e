import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/** Body of POST /api/v1/webhooks/test. */
export class SendTestWebhookDto {
  @ApiPropertyOptional({
    format: 'uri',
    maxLength: 2048,
    example: 'https://hooks.example.com/generation',
    description: "Where to send the test event; the key's default webhook URL when absent. Checked like any webhook URL.",
  })
  @IsOptional()
  @IsString({ message: 'url: must be text.' })
  @MaxLength(2048, { message: 'url: use at most 2048 characters.' })
  url?: string;
}
