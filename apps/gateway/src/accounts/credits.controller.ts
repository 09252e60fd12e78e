import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiAuthenticated, ApiErrors, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { CreditsDto } from '../docs/credits.dto';
import { CreditsReply, GetCredits } from '../plans/get-credits.service';

@ApiTags('account')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class CreditsController {
  constructor(private readonly getCredits: GetCredits) {}

  @Get('credits')
  @ApiOperation({ operationId: 'getCredits', summary: "The account's plan, limits and credits" })
  @ApiOkResponse({ type: CreditsDto, headers: successHeaders() })
  @ApiErrors({ status: 403, examples: missingScopeExample('read') })
  @RequireScope('read')
  credits(@CurrentPrincipal() principal: Principal): Promise<CreditsReply> {
    return this.getCredits.execute({ accountId: principal.accountId });
  }
}
