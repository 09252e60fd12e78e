import { Body, Controller, Get, Headers, HttpCode, Param, ParseUUIDPipe, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { GenerationRecord, ListGenerationsReply, ListWebhookDeliveriesReply, RedeliverWebhookReply } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiAuthenticated, ApiErrors, ErrorDoc, HeadersObject, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { GenerationDto, GenerationPageDto, WebhookDeliveryDto, WebhookDeliveryListDto } from '../docs/api-schemas.dto';
import { GenerateRequestDto } from './generate-request.dto';
import { GenerationsService } from './submit/submit-generation';
import { GenerationStreams } from './live/generation-streams.service';
import { SseStream } from './live/sse-stream';
import { ApiStreamEvents } from './live/stream-events.docs';
import { ListGenerationsQueryDto } from './list-generations-query.dto';

const notFound = () => new NotFoundError('No generation with that id.');

/** The example id of a generation that does not exist (what the document's 404 examples name). */
export const UNKNOWN_GENERATION_ID = '00000000-0000-4000-8000-000000000000';

/** 404 on every route of one generation: an id that is not one, and one that no generation of the caller's has. */
const GENERATION_NOT_FOUND: ErrorDoc = {
  status: 404,
  examples: {
    unknown_id: { summary: 'No generation of this account has that id', message: `No generation with id "${UNKNOWN_GENERATION_ID}".` },
    not_an_id: { summary: 'The id is not a generation id (a UUID)', message: notFound().message },
  },
};
const READ_FORBIDDEN: ErrorDoc = { status: 403, examples: missingScopeExample('read') };
const GENERATE_FORBIDDEN: ErrorDoc = { status: 403, examples: missingScopeExample('generate') };

const SUBMIT_HEADERS: HeadersObject = {
  Location: { description: 'The URL of the generation: /api/v1/generations/{id}', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '"true" when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string' },
  },
};

@ApiTags('generations')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class GenerationsController {
  constructor(
    private readonly generations: GenerationsService,
    private readonly streams: GenerationStreams,
  ) {}

  /**
   * 200 with the finished record (synchronous models within the wait budget), else 202 with it as it
   * stands. With `Idempotency-Key`, a repeat answers the first response (`Idempotent-Replayed: true`).
   */
  @Post('generate')
  @ApiOperation({
    operationId: 'createGeneration',
    summary: 'Submit a generation',
    description:
      'Reserves the model\'s price and queues the job. Synchronous (image) models answer 200 with the finished record ' +
      'when it completes within the wait budget; otherwise 202 with the record as it stands. Both carry Location.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Makes the submit safe to retry: the same key and body within 24 h return the first answer and charge once; ' +
      'the same key with another body is 422.',
  })
  @ApiHeader({
    name: 'Cancel-After',
    required: false,
    description:
      'A deadline: the job is canceled (failed, refunded, canceled_at set) if it has not finished this long after submit, ' +
      'queued or running. A duration such as 30s, 5m or 1h30m, or plain seconds; 1 second to 24 hours.',
  })
  @ApiOkResponse({ type: GenerationDto, description: 'Finished (completed or failed).', headers: successHeaders(SUBMIT_HEADERS) })
  @ApiAcceptedResponse({
    type: GenerationDto,
    description: 'Accepted; poll Location or wait for the webhook.',
    headers: successHeaders(SUBMIT_HEADERS),
  })
  @ApiErrors(
    400,
    {
      status: 402,
      examples: {
        below_minimum: {
          summary: "Available credits below the model's minimum",
          message: 'Insufficient credits: model "pixel-flux-1" needs at least 4 available credits; this account has 1.',
        },
        spending_cap: {
          summary: "The hold would pass the API key's spending cap (code spending_cap_reached)",
          code: 'spending_cap_reached',
          message:
            'Spending cap reached: this API key may spend 10 credits per day (UTC); it has spent 8 today and this generation needs 4. ' +
            'The cap resets at 2026-11-27T00:00:00Z.',
        },
      },
    },
    {
      status: 403,
      examples: {
        ...missingScopeExample('generate'),
        plan: { summary: 'The model needs a higher plan', message: 'Model "pixel-flux-1-hd" needs the pro plan or above; this account is on free.' },
      },
    },
    413,
    415,
    {
      status: 422,
      examples: {
        fields: { summary: 'Required fields missing (`{}`)', message: 'model is required; prompt is required; type is required' },
        unknown_model: { summary: 'A model id the catalogue does not have', message: 'model: unknown model "fox-9". See GET /api/v1/models.' },
        idempotency_key_reused: {
          summary: 'An Idempotency-Key used before with another body',
          message:
            'Idempotency-Key: this key was already used with a different request body in the last 24 hours. ' +
            'Send the same body to get the original response, or use a new key for a new request.',
        },
      },
    },
  )
  @HttpCode(200)
  @RequireScope('generate')
  async generate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: GenerateRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Headers('cancel-after') cancelAfter: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<GenerationRecord> {
    const result = await this.generations.submit(principal, body, idempotencyKey, cancelAfter);
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
    @Param('id', new ParseUUIDPipe({ exceptionFactory: notFound })) id: string,
  ): Promise<GenerationRecord> {
    return this.generations.get(principal, id);
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
    return this.generations.list(principal, query);
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
    @Param('id', new ParseUUIDPipe({ exceptionFactory: notFound })) id: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const stream = new SseStream(request, reply);
    const stop = await this.streams.watch(
      principal.accountId,
      id,
      {
        read: () => this.generations.get(principal, id),
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
    @Param('id', new ParseUUIDPipe({ exceptionFactory: notFound })) id: string,
  ): Promise<GenerationRecord> {
    return this.generations.cancel(principal, id);
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
    @Param('id', new ParseUUIDPipe({ exceptionFactory: notFound })) id: string,
  ): Promise<ListWebhookDeliveriesReply> {
    return this.generations.deliveries(principal, id);
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
    @Param('id', new ParseUUIDPipe({ exceptionFactory: notFound })) id: string,
  ): Promise<RedeliverWebhookReply> {
    return this.generations.redeliver(principal, id);
  }
}
