import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** The query of every cursor-paged list (generations, the credits ledger): page size and where to resume. */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(100, { message: 'limit must be at most 100' })
  limit?: number;

  // Longer than any cursor we hand out: the same words as a cursor the service cannot decode.
  @ApiPropertyOptional({ maxLength: 200, description: 'next_cursor of the previous page.' })
  @IsOptional()
  @IsString({ message: 'cursor must be a string' })
  @MaxLength(200, { message: 'cursor: not a cursor returned by this endpoint.' })
  cursor?: string;
}
