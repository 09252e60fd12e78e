import { Controller, Get, HttpCode, Param, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import type { GenerationDetailReply, GenerationRecord, ListGenerationsReply, RedeliverWebhookReply } from '@gen/contracts';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { CancelGeneration } from './cancel-generation.service';
import { GetGenerationDetail } from './deliveries/get-generation-detail.service';
import { RedeliverWebhook } from './deliveries/redeliver-webhook.service';
import { generationId } from './generation-id';
import { ListGenerations } from './list-generations.service';
import { ListGenerationsQueryDto } from './list-generations-query.dto';

/** The account's generations in the dashboard: the same use cases as the API's, for the session's account. */
@Controller('dashboard/api')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardGenerationsController {
  constructor(
    private readonly listGenerations: ListGenerations,
    private readonly getDetail: GetGenerationDetail,
    private readonly cancelGeneration: CancelGeneration,
    private readonly redeliverWebhook: RedeliverWebhook,
  ) {}

  @Get('generations')
  @RequiresRole('viewer')
  list(@CurrentSession() session: LiveSession, @Query() query: ListGenerationsQueryDto): Promise<ListGenerationsReply> {
    return this.listGenerations.execute({ ...query, accountId: session.accountId });
  }

  @Get('generations/:id')
  @RequiresRole('viewer')
  detail(@CurrentSession() session: LiveSession, @Param('id', generationId()) id: string): Promise<GenerationDetailReply> {
    return this.getDetail.execute({ accountId: session.accountId, jobId: id });
  }

  @Post('generations/:id/cancel')
  @RequiresRole('developer')
  @HttpCode(200)
  cancel(@CurrentSession() session: LiveSession, @Param('id', generationId()) id: string): Promise<GenerationRecord> {
    return this.cancelGeneration.execute({ accountId: session.accountId, jobId: id });
  }

  @Post('generations/:id/redeliver')
  @RequiresRole('developer')
  @HttpCode(202)
  redeliver(@CurrentSession() session: LiveSession, @Param('id', generationId()) id: string): Promise<RedeliverWebhookReply> {
    return this.redeliverWebhook.execute({ accountId: session.accountId, jobId: id });
  }
}
