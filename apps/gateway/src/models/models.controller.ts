import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ModelInfo } from '@gen/contracts';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiAuthenticated, ApiErrors, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { ModelDto, ModelListDto } from '../docs/model.dto';
import { GetModel } from './get-model.service';
import { ListModels } from './list-models.service';

@ApiTags('account')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class ModelsController {
  constructor(
    private readonly listModels: ListModels,
    private readonly getModel: GetModel,
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
    return { data: await this.listModels.execute({ accountId: principal.accountId }) };
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
    return this.getModel.execute({ accountId: principal.accountId, modelId: id });
  }
}
