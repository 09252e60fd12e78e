import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { AUDIT_ACTIONS, AuditAction } from '../audit-log/audit-actions';

/** Filters of the audit log: by actor (an email or operator name) and by action. */
export class AuditFilterDto {
  @IsOptional()
  @IsString({ message: 'actor: must be text' })
  @MaxLength(320, { message: 'actor: must be at most 320 characters' })
  actor?: string;

  @IsOptional()
  @IsIn([...AUDIT_ACTIONS, ''], { message: `action: must be one of ${AUDIT_ACTIONS.join(', ')}` })
  action?: AuditAction | '';
}

/** A page of the audit log. */
export class AuditQueryDto extends AuditFilterDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit: must be an integer' })
  @Min(1, { message: 'limit: must be between 1 and 200' })
  @Max(200, { message: 'limit: must be between 1 and 200' })
  limit?: number;

  @IsOptional()
  @Matches(/^\d{1,19}$/, { message: 'cursor: must be the next_cursor of a previous page' })
  cursor?: string;
}
