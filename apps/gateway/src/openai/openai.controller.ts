import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { GenerateOpenAiImages, OpenAiImagesResponse } from './generate-openai-images.service';
import { OpenAiImageRequestDto } from './image-request.dto';
import { ListOpenAiModels, OpenAiModel, OpenAiModelList } from './list-openai-models.service';
import { openAiOpenApiDocument } from './openai-openapi';

/**
 * OpenAI's Images API under /openai/v1 (docs/guide/openai-compatible.md), for OpenAI's own clients
 * pointed at this service: the same API keys, the same generations. Its own OpenAPI document
 * (openai-openapi.ts), so the service's document keeps to /api/v1.
 */
@ApiExcludeController()
@Controller('openai/v1')
export class OpenAiDocumentController {
  private readonly document: Record<string, unknown>;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings) {
    this.document = openAiOpenApiDocument(settings.publicBaseUrl);
  }

  /** No key: a document, like /api/v1/openapi.json. */
  @Get('openapi.json')
  openapi(): Record<string, unknown> {
    return this.document;
  }
}

@ApiExcludeController()
@Controller('openai/v1')
@UseGuards(ApiKeyGuard)
export class OpenAiController {
  constructor(
    private readonly images: GenerateOpenAiImages,
    private readonly models: ListOpenAiModels,
  ) {}

  @Post('images/generations')
  @HttpCode(200)
  @RequireScope('generate')
  generate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: OpenAiImageRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<OpenAiImagesResponse> {
    return this.images.execute({ accountId: principal.accountId, apiKeyId: principal.apiKeyId, body, idempotencyKey });
  }

  @Get('models')
  @RequireScope('read')
  list(@CurrentPrincipal() principal: Principal): Promise<OpenAiModelList> {
    return this.models.execute({ accountId: principal.accountId });
  }

  @Get('models/:id')
  @RequireScope('read')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<OpenAiModel> {
    return this.models.one({ accountId: principal.accountId, id });
  }
}
