import { ApiProperty } from '@nestjs/swagger';
import { DASHBOARD_ONLY_CODES, ERROR_STATUS, ErrorCode } from '@gen/errors';

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
