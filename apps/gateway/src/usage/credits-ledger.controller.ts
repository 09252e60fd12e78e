import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { LedgerReply } from '@gen/contracts';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiAuthenticated, ApiErrors, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { LedgerPageDto, LedgerQueryDto } from './ledger.dto';
import { GetCreditLedger } from './get-credit-ledger.service';

@ApiTags('account')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class CreditsLedgerController {
  constructor(private readonly ledger: GetCreditLedger) {}

  @Get('credits/ledger')
  @ApiOperation({
    operationId: 'listCreditLedger',
    summary: "The account's credit ledger",
    description:
      'Every change to the credits, newest first, in cursor pages: grants, adjustments, and for each generation its hold ' +
      '(at submit), then its capture (charged) or release (refunded). `amount` is the change to the available credits, ' +
      'so the amounts add up to the available balance.',
  })
  @ApiOkResponse({ type: LedgerPageDto, headers: successHeaders() })
  @ApiErrors(
    { status: 403, examples: missingScopeExample('read') },
    {
      status: 422,
      examples: {
        limit: { summary: 'A page size out of range (`limit=0`)', message: 'limit must be at least 1' },
        cursor: { summary: 'A cursor this endpoint did not return', message: 'cursor: not a cursor returned by this endpoint.' },
      },
    },
  )
  @RequireScope('read')
  page(@CurrentPrincipal() principal: Principal, @Query() query: LedgerQueryDto): Promise<LedgerReply> {
    return this.ledger.execute({ ...query, accountId: principal.accountId });
  }
}
