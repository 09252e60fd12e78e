import { Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { BatchView, ListBatchesReply } from '@gen/contracts';
import { envelope } from '@gen/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiAuthenticated, ApiErrors, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { PageQueryDto } from '../http-common/page-query.dto';
import { rawBodyOf, RawBodyRoute } from '../http-common/raw-body';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { BatchDto, BatchPageDto } from './batch.dto';
import { batchId } from './batch-id';
import { BatchQueries } from './batch-queries.service';
import { BatchLinesRefused, RefusedLine } from './batch-refusal';
import { batchFileOf, sendBatchFile } from './batch-request';
import { CreateBatchQueryDto } from './batch-options';
import { ApiBatchFile, ApiCreateBatch, BATCH_NOT_FOUND } from './batches.docs';
import { CreateBatch } from './create-batch.service';

/** A refused file's answer: the envelope, with the refused lines beside its message. */
type RefusalBody = { error: ReturnType<typeof envelope>['error'] & { lines: RefusedLine[] } };

@ApiTags('batches')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class BatchesController {
  constructor(
    private readonly createBatch: CreateBatch,
    private readonly batches: BatchQueries,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /** 201 with the batch and Location; with `Idempotency-Key`, a repeat answers the first batch (`Idempotent-Replayed: true`). */
  @Post('batches')
  @RawBodyRoute()
  @ApiCreateBatch()
  @HttpCode(201)
  @RequireScope('generate')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Query() query: CreateBatchQueryDto,
    @Headers('content-type') contentType: string | undefined,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BatchView | RefusalBody> {
    const { file, options } = await batchFileOf(contentType, query, request.body, rawBodyOf(request), this.settings);
    try {
      const result = await this.createBatch.execute({ accountId: principal.accountId, apiKeyId: principal.apiKeyId, file, options, idempotencyKey });
      void reply.header('Location', result.location);
      if (result.replayed) void reply.header('Idempotent-Replayed', 'true');
      return result.batch;
    } catch (error) {
      if (!(error instanceof BatchLinesRefused)) throw error;
      const refused = envelope(error.code, error.message, String(request.id));
      void reply.status(refused.error.status);
      return { error: { ...refused.error, lines: error.lines } };
    }
  }

  @Get('batches')
  @ApiOperation({ operationId: 'listBatches', summary: "List the caller's batches", description: 'Newest first, in cursor pages.' })
  @ApiOkResponse({ type: BatchPageDto, headers: successHeaders() })
  @ApiErrors({ status: 403, examples: missingScopeExample('read') }, {
    status: 422,
    examples: { limit: { summary: 'A page size out of range (`limit=0`)', message: 'limit must be at least 1' } },
  })
  @RequireScope('read')
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<ListBatchesReply> {
    return this.batches.list({ accountId: principal.accountId, limit: query.limit, cursor: query.cursor });
  }

  @Get('batches/:id')
  @ApiOperation({ operationId: 'getBatch', summary: 'Read a batch', description: 'Its status, line counts and credits charged so far.' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: BatchDto, headers: successHeaders() })
  @ApiErrors({ status: 403, examples: missingScopeExample('read') }, BATCH_NOT_FOUND)
  @RequireScope('read')
  get(@CurrentPrincipal() principal: Principal, @Param('id', batchId()) id: string): Promise<BatchView> {
    return this.batches.get({ accountId: principal.accountId, batchId: id });
  }

  @Post('batches/:id/cancel')
  @ApiOperation({
    operationId: 'cancelBatch',
    summary: 'Cancel a batch',
    description:
      'Lines not admitted yet are canceled (nothing was held for them); admitted generations still queued are canceled and refunded; ' +
      'running ones finish (`canceling` until they do, then `canceled`). Canceling a canceled or finished batch answers it as it is.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: BatchDto, headers: successHeaders() })
  @ApiErrors({ status: 403, examples: missingScopeExample('generate') }, BATCH_NOT_FOUND)
  @HttpCode(200)
  @RequireScope('generate')
  cancel(@CurrentPrincipal() principal: Principal, @Param('id', batchId()) id: string): Promise<BatchView> {
    return this.batches.cancel({ accountId: principal.accountId, batchId: id });
  }

  @Get('batches/:id/results')
  @ApiBatchFile('results')
  @RequireScope('read')
  async results(@CurrentPrincipal() principal: Principal, @Param('id', batchId()) id: string, @Res() reply: FastifyReply): Promise<void> {
    sendBatchFile(reply, await this.batches.file({ accountId: principal.accountId, batchId: id }, 'results'));
  }

  @Get('batches/:id/errors')
  @ApiBatchFile('errors')
  @RequireScope('read')
  async errors(@CurrentPrincipal() principal: Principal, @Param('id', batchId()) id: string, @Res() reply: FastifyReply): Promise<void> {
    sendBatchFile(reply, await this.batches.file({ accountId: principal.accountId, batchId: id }, 'errors'));
  }
}
