import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { GENERATION_TYPES, GenerationType, JOB_STATUSES, JobStatus } from '@gen/contracts';
import { PageQueryDto } from '../http-common/page-query.dto';

/** `GET /api/v1/generations` (and the dashboard's list): a page, optionally of one status and type. */
export class ListGenerationsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: JOB_STATUSES })
  @IsOptional()
  @IsIn(JOB_STATUSES, { message: `status must be one of ${JOB_STATUSES.join(', ')}` })
  status?: JobStatus;

  @ApiPropertyOptional({ enum: GENERATION_TYPES })
  @IsOptional()
  @IsIn(GENERATION_TYPES, { message: `type must be one of ${GENERATION_TYPES.join(', ')}` })
  type?: GenerationType;
}
