import { ApiProperty } from '@nestjs/swagger';
import { PLANS, PlanName } from '@gen/contracts';

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
