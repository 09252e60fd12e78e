import { ApiProperty } from '@nestjs/swagger';
import { LEDGER_KINDS, LedgerKind } from '@gen/contracts';
import { PageQueryDto } from '../http-common/page-query.dto';

/** `GET /api/v1/credits/ledger` (and the dashboard's usage page): a page of entries. */
export class LedgerQueryDto extends PageQueryDto {}

export class LedgerEntryDto {
  @ApiProperty({ example: '1042', description: 'Increases with time within an account.' })
  id!: string;

  @ApiProperty({
    enum: LEDGER_KINDS,
    description:
      '`grant`: credits added; `adjustment`: credits removed by the operator; `hold`: reserved at submit; ' +
      '`capture`: the held credits charged when the generation completed; `release`: the held credits returned when it failed (the refund).',
  })
  kind!: LedgerKind;

  @ApiProperty({ type: 'integer', example: -4, description: 'Signed change to the available credits (a hold is negative, a release positive, a capture 0).' })
  amount!: number;

  @ApiProperty({ type: 'integer', example: 4, description: 'Signed change to the held credits.' })
  held_change!: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 996, description: 'Available credits right after this entry.' })
  balance_after!: number;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The generation of a hold, capture or release; null for grants and adjustments.' })
  generation_id!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'pixel-flux-1', description: "The generation's model, when known." })
  model!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'generation failed', description: 'Why (an operator grant\'s reason, a refund\'s cause).' })
  note!: string | null;
}

export class LedgerPageDto {
  @ApiProperty({ type: [LedgerEntryDto], description: 'Newest first.' })
  data!: LedgerEntryDto[];

  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` for the next (older) page; null on the last page.' })
  next_cursor!: string | null;
}
