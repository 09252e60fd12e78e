import { ApiProperty } from '@nestjs/swagger';

/** The body of an `account.low_balance` webhook request (the document's `webhooks`). */
export class AccountLowBalanceEventDto {
  @ApiProperty({ enum: ['account.low_balance'], description: 'Equal to the X-Service-Event header.', example: 'account.low_balance' })
  event!: string;

  @ApiProperty({ format: 'uuid', description: 'The event: the same in every delivery of it (one per destination URL). Drop duplicates by it.', example: '0c6f3e2a-94d1-4b7e-8f25-6a1d9c3b7e40' })
  id!: string;

  @ApiProperty({ format: 'uuid', description: 'Your account.', example: '5b2e7d10-3c4a-4f8e-9a61-2d7c0e9f1b35' })
  account_id!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The alert threshold set for the account, in credits.', example: 150 })
  threshold!: number;

  @ApiProperty({ type: 'integer', description: 'Available credits right after the change that crossed the threshold.', example: 149 })
  available!: number;

  @ApiProperty({ format: 'date-time', description: 'When the balance crossed the threshold.', example: '2026-11-23T17:45:10.021Z' })
  created_at!: string;
}
