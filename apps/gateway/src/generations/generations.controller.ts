import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { GenerationRecord, ListGenerationsReply, ListWebhookDeliveriesReply, RedeliverWebhookReply } from '@gen/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiAuthenticated, ApiErrors, successHeaders } from '../docs/api-docs.decorators';
import { GenerationDto, GenerationPageDto } from '../docs/generation.dto';
import { generationId } from './generation-id';
import { ApiSubmitGeneration, GENERATE_FORBIDDEN, GENERATION_NOT_FOUND, READ_FORBIDDEN } from './generations.docs';
import { WebhookDeliveryDto, WebhookDeliveryListDto } from '../docs/webhook-delivery.dto';
import { GenerateRequestDto } from './submit/generate-request.dto';
import { GenerationStreams } from './live/generation-streams.service';
import { SseStream } from './live/sse-stream';
import { ApiStreamEvents } from './live/stream-events.docs';
import { ListGenerationsQueryDto } from './list-generations-query.dto';
import { CancelGeneration } from './cancel-generation.service';
import { ListGenerationDeliveries } from './deliveries/list-generation-deliveries.service';
import { RedeliverWebhook } from './deliveries/redeliver-webhook.service';
import { GetGeneration } from './records/get-generation.service';
import { ListGenerations } from './list-generations.service';
import { SubmitGeneration } from './submit/submit-generation.service';

@ApiTags('generations')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class GenerationsController {
  constructor(
    private readonly submitGeneration: SubmitGeneration,
    private readonly getGeneration: GetGeneration,
    private readonly listGenerations: ListGenerations,
    private readonly cancelGeneration: CancelGeneration,
    private readonly listDeliveries: ListGenerationDeliveries,
    private readonly redeliverWebhook: RedeliverWebhook,
    private readonly streams: GenerationStreams,
  ) {}

  /**
   * 200 with the finished record (synchronous models within the wait budget), else 202 with it as it
   * stands. With `Idempotency-Key`, a repeat answers the first response (`Idempotent-Replayed: true`).
   */
  @Post('generate')
  @ApiSubmitGeneration()
  @HttpCode(200)
  @RequireScope('generate')
  async generate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: GenerateRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Headers('cancel-after') cancelAfter: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<GenerationRecord> {
    const result = await this.submitGeneration.execute({ accountId: principal.accountId, apiKeyId: principal.apiKeyId, body, idempotencyKey, cancelAfter });
    void reply.status(result.status).header('Location', result.location);
    if (result.replayed) void reply.header('Idempotent-Replayed', 'true');
    return result.record;
  }

  @Get('generations/:id')
  @ApiOperation({ operationId: 'getGeneration', summary: 'Read a generation' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: GenerationDto, headers: successHeaders() })
  @ApiErrors(READ_FORBIDDEN, GENERATION_NOT_FOUND)
  @RequireScope('read')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', generationId()) id: string,
  ): Promise<GenerationRecord> {
    return this.getGeneration.execute({ accountId: principal.accountId, jobId: id });
  }

  @Get('generations')
  @ApiOperation({ operationId: 'listGenerations', summary: "List the caller's generations", description: 'Newest first, in cursor pages.' })
  @ApiOkResponse({ type: GenerationPageDto, headers: successHeaders() })
  @ApiErrors(READ_FORBIDDEN, {
    status: 422,
    examples: { limit: { summary: 'A page size out of range (`limit=0`)', message: 'limit must be at least 1' } },
  })
  @RequireScope('read')
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListGenerationsQueryDto): Promise<ListGenerationsReply> {
    return this.listGenerations.execute({ ...query, accountId: principal.accountId });
  }

  @Get('generations/:id/events')
  @ApiStreamEvents()
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiErrors(READ_FORBIDDEN, GENERATION_NOT_FOUND, {
    status: 429,
    examples: {
      streams: {
        summary: 'Too many live status streams open',
        message: 'At most 20 live status streams may be open per account; close one and retry.',
      },
    },
  })
  @RequireScope('read')
  async events(
    @CurrentPrincipal() principal: Principal,
    @Param('id', generationId()) id: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const stream = new SseStream(request, reply);
    const stop = await this.streams.watch(
      principal.accountId,
      id,
      {
        read: () => this.getGeneration.execute({ accountId: principal.accountId, jobId: id }),
        send: (record, eventId) => stream.send(record, eventId),
        open: () => stream.open(),
        noContent: () => stream.noContent(),
        heartbeat: () => stream.heartbeat(),
        end: () => stream.end(),
      },
      lastEventId,
    );
    stream.onClose(stop);
  }

  @Post('generations/:id/cancel')
  @ApiOperation({
    operationId: 'cancelGeneration',
    summary: 'Cancel a generation',
    description:
      'A queued or running generation is canceled at once: it becomes `failed` with `credits_charged: 0`, the error ' +
      '"Canceled at your request. Your credits were refunded.", and `canceled_at`; its generation.failed webhook is sent. ' +
      'A running engine or provider job is stopped best-effort. Canceling a canceled generation answers it again; ' +
      'one that already completed or failed is 409.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: GenerationDto, headers: successHeaders() })
  @ApiErrors(GENERATE_FORBIDDEN, GENERATION_NOT_FOUND, {
    status: 409,
    examples: {
      finished: { summary: 'The generation already finished', message: 'This generation already completed; there is nothing to cancel.' },
    },
  })
  @HttpCode(200)
  @RequireScope('generate')
  cancel(
    @CurrentPrincipal() principal: Principal,
    @Param('id', generationId()) id: string,
  ): Promise<GenerationRecord> {
    return this.cancelGeneration.execute({ accountId: principal.accountId, jobId: id });
  }

  @Get('generations/:id/deliveries')
  @ApiOperation({
    operationId: 'listGenerationDeliveries',
    summary: "A generation's webhook deliveries",
    description: 'Oldest first: the original delivery, then any redeliveries, each with its attempts. Empty when none was made.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: WebhookDeliveryListDto, headers: successHeaders() })
  @ApiErrors(READ_FORBIDDEN, GENERATION_NOT_FOUND)
  @RequireScope('read')
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id', generationId()) id: string,
  ): Promise<ListWebhookDeliveriesReply> {
    return this.listDeliveries.execute({ accountId: principal.accountId, jobId: id });
  }

  @Post('generations/:id/redeliver')
  @ApiOperation({
    operationId: 'redeliverGenerationWebhook',
    summary: "Send a finished generation's webhook again",
    description: 'A new delivery (new delivery id) of the same event body, signed with the key\'s current secret.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto, headers: successHeaders() })
  @ApiErrors(GENERATE_FORBIDDEN, GENERATION_NOT_FOUND, {
    status: 409,
    examples: {
      unfinished: { summary: 'The generation has not finished', message: 'This generation has not finished; its webhook is sent when it does.' },
      no_destination: {
        summary: 'It had no webhook destination when it finished',
        message: 'This generation has no webhook delivery to send again: it had no webhook destination when it finished.',
      },
    },
  })
  @HttpCode(202)
  @RequireScope('generate')
  redeliver(
    @CurrentPrincipal() principal: Principal,
    @Param('id', generationId()) id: string,
  ): Promise<RedeliverWebhookReply> {
    return this.redeliverWebhook.execute({ accountId: principal.accountId, jobId: id });
  }
}
