import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { LedgerReply } from '@gen/contracts';
import { ApiKeyGuard, RequireScope } from '../../auth/api-key.guard';
import type { Principal } from '../../auth/api-keys.service';
import { CurrentPrincipal } from '../../auth/principal.decorator';
import { ApiAuthenticated, ApiErrors, successHeaders } from '../docs/api-docs.decorators';
import { LedgerPageDto, LedgerQueryDto } from './ledger.dto';
import { CreditsLedgerService } from './credits-ledger.service';

@ApiTags('account')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class CreditsLedgerController {
  constructor(private readonly ledger: CreditsLedgerService) {}

  @Get('credits/ledger')
  @ApiOperation({
    summary: "The account's credit ledger",
    description:
      'Every change to the credits, newest first, in cursor pages: grants, adjustments, and for each generation its hold ' +
      '(at submit), then its capture (charged) or release (refunded). `amount` is the change to the available credits, ' +
      'so the amounts add up to the available balance.',
  })
  @ApiOkResponse({ type: LedgerPageDto, headers: successHeaders() })
  @ApiErrors(403, 422)
  @RequireScope('read')
  page(@CurrentPrincipal() principal: Principal, @Query() query: LedgerQueryDto): Promise<LedgerReply> {
    return this.ledger.page(principal.accountId, query);
  }
}
