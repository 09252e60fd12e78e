import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { GENERATION_TYPES, GenerationType, JOB_STATUSES, JobStatus } from '@gen/contracts';

export class ListGenerationsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(100, { message: 'limit must be at most 100' })
  limit?: number;

  @ApiPropertyOptional({ maxLength: 200, description: 'next_cursor of the previous page.' })
  @IsOptional()
  @IsString({ message: 'cursor must be a string' })
  @MaxLength(200, { message: 'cursor must be at most 200 characters' })
  cursor?: string;

  @ApiPropertyOptional({ enum: JOB_STATUSES })
  @IsOptional()
  @IsIn(JOB_STATUSES, { message: `status must be one of ${JOB_STATUSES.join(', ')}` })
  status?: JobStatus;

  @ApiPropertyOptional({ enum: GENERATION_TYPES })
  @IsOptional()
  @IsIn(GENERATION_TYPES, { message: `type must be one of ${GENERATION_TYPES.join(', ')}` })
  type?: GenerationType;
}
