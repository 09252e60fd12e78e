import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ModelInfo } from '@gen/contracts';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { AccountPlanService } from '../plans/account-plan.service';
import { GenerationsService } from '../generations/submit/submit-generation';
import { ApiAuthenticated, ApiErrors, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { CreditsDto, ModelDto, ModelListDto } from '../docs/api-schemas.dto';

@ApiTags('account')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class AccountController {
  constructor(
    private readonly generations: GenerationsService,
    private readonly plans: AccountPlanService,
  ) {}

  /** The catalogue, each model marked with whether this account's plan may use it. */
  @Get('models')
  @ApiOperation({
    operationId: 'listModels',
    summary: 'List the model catalogue',
    description: 'Every model, each marked `available` for the caller (enabled, installed, allowed by the plan) or with its `unavailable_reason`.',
  })
  @ApiOkResponse({ type: ModelListDto, headers: successHeaders() })
  @ApiErrors({ status: 403, examples: missingScopeExample('read') })
  @RequireScope('read')
  async models(@CurrentPrincipal() principal: Principal): Promise<{ data: ModelInfo[] }> {
    return { data: await this.generations.listModels(principal) };
  }

  /** One model, with its inputs schema and how its price is computed. */
  @Get('models/:id')
  @ApiOperation({
    operationId: 'getModel',
    summary: 'Read one model',
    description:
      'The model as the list shows it, for this caller: `inputs` is the JSON Schema its `input` is checked against, ' +
      '`price_multipliers` and `pricing` say how its price is computed. An unknown id is 404 `not_found`.',
  })
  @ApiOkResponse({ type: ModelDto, headers: successHeaders() })
  @ApiErrors({ status: 403, examples: missingScopeExample('read') }, { status: 404, examples: { unknown_model: { summary: 'No model has this id', message: 'Unknown model "no-such-model". See GET /api/v1/models.' } } })
  @RequireScope('read')
  async model(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<ModelInfo> {
    return this.generations.getModel(principal, id);
  }

  @Get('credits')
  @ApiOperation({ operationId: 'getCredits', summary: "The account's plan, limits and credits" })
  @ApiOkResponse({ type: CreditsDto, headers: successHeaders() })
  @ApiErrors({ status: 403, examples: missingScopeExample('read') })
  @RequireScope('read')
  async credits(@CurrentPrincipal() principal: Principal) {
    const balance = await this.plans.fresh(principal.accountId);
    return { plan: balance.plan, available: balance.available, held: balance.held, limits: balance.limits };
  }
}
