import { Body, Controller, Get, Headers, HttpCode, Param, ParseUUIDPipe, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { GenerationRecord, ListGenerationsReply, ListWebhookDeliveriesReply, RedeliverWebhookReply } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import type { FastifyReply } from 'fastify';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { GenerateRequestDto } from './generate-request.dto';
import { GenerationsService } from './generations.service';
import { ListGenerationsQueryDto } from './list-generations-query.dto';

const notFound = () => new NotFoundError('No generation with that id.');

@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class GenerationsController {
  constructor(private readonly generations: GenerationsService) {}

  /**
   * 200 with the finished record (synchronous models within the wait budget), else 202 with it as it
   * stands. With `Idempotency-Key`, a repeat answers the first response (`Idempotent-Replayed: true`).
   */
  @Post('generate')
  @HttpCode(200)
  @RequireScope('generate')
  async generate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: GenerateRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<GenerationRecord> {
    const result = await this.generations.submit(principal, body, idempotencyKey);
    void reply.status(result.status).header('Location', result.location);
    if (result.replayed) void reply.header('Idempotent-Replayed', 'true');
    return result.record;
  }

  @Get('generations/:id')
  @RequireScope('read')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: notFound })) id: string,
  ): Promise<GenerationRecord> {
    return this.generations.get(principal, id);
  }

  @Get('generations')
  @RequireScope('read')
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListGenerationsQueryDto): Promise<ListGenerationsReply> {
    return this.generations.list(principal, query);
  }

  @Get('generations/:id/deliveries')
  @RequireScope('read')
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: notFound })) id: string,
  ): Promise<ListWebhookDeliveriesReply> {
    return this.generations.deliveries(principal, id);
  }

  @Post('generations/:id/redeliver')
  @HttpCode(202)
  @RequireScope('generate')
  redeliver(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: notFound })) id: string,
  ): Promise<RedeliverWebhookReply> {
    return this.generations.redeliver(principal, id);
  }
}
