import { Body, Controller, Headers, HttpCode, Post, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { GenerationRecord, UploadReply } from '@gen/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../auth/api-keys.service';
import { CurrentPrincipal } from '../../auth/principal.decorator';
import { GenerateRequestDto } from '../submit/generate-request.dto';
import { SubmitGeneration } from '../submit/submit-generation.service';
import { NoStoreInterceptor } from '../../http-common/no-store.interceptor';
import { RequiresRole } from '../../sessions/requires-role.decorator';
import { DashboardSessionGuard } from '../../sessions/session.guard';
import { PlaygroundKeyGuard } from './playground-key.guard';
import { rawBodyOf, RawBodyRoute } from '../../http-common/raw-body';
import { UploadsService } from '../../uploads/uploads.service';

/**
 * The playground's submit: POST /api/v1/generate on behalf of the signed-in account, with one of its
 * keys (by id), through the same use case. Same body, same answers (200 finished / 202 accepted,
 * Location, Idempotency-Key), same errors. Its uploads (a file for a media input) are POST
 * /api/v1/uploads the same way: the same service, for the account, as the chosen key.
 */
@Controller('dashboard/api')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardPlaygroundController {
  constructor(
    private readonly submitGeneration: SubmitGeneration,
    private readonly uploads: UploadsService,
  ) {}

  @Post('keys/:id/generate')
  @RequiresRole('developer')
  @HttpCode(200)
  @UseGuards(PlaygroundKeyGuard)
  async generate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: GenerateRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<GenerationRecord> {
    const result = await this.submitGeneration.execute({ accountId: principal.accountId, apiKeyId: principal.apiKeyId, body, idempotencyKey });
    void reply.status(result.status).header('Location', result.location);
    if (result.replayed) void reply.header('Idempotent-Replayed', 'true');
    return result.record;
  }

  @Post('keys/:id/uploads')
  @RawBodyRoute()
  @RequiresRole('developer')
  @HttpCode(201)
  @UseGuards(PlaygroundKeyGuard)
  upload(@CurrentPrincipal() principal: Principal, @Headers('content-type') contentType: string | undefined, @Req() request: FastifyRequest): Promise<UploadReply> {
    return this.uploads.create(principal.accountId, contentType, rawBodyOf(request));
  }
}
