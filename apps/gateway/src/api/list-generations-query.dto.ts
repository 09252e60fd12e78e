import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { GENERATION_TYPES, GenerationType, JOB_STATUSES, JobStatus } from '@gen/contracts';

export class ListGenerationsQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(100, { message: 'limit must be at most 100' })
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @IsOptional()
  @IsIn(JOB_STATUSES, { message: `status must be one of ${JOB_STATUSES.join(', ')}` })
  status?: JobStatus;

  @IsOptional()
  @IsIn(GENERATION_TYPES, { message: `type must be one of ${GENERATION_TYPES.join(', ')}` })
  type?: GenerationType;
}
