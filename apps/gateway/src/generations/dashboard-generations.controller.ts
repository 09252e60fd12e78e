import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import type { GenerationRecord, ListGenerationsReply, RedeliverWebhookReply } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import { ListGenerationsQueryDto } from './list-generations-query.dto';
import { NoStoreInterceptor } from '../dashboard/no-store.interceptor';
import { RequiresRole } from '../dashboard/sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../dashboard/sessions/session.guard';
import type { LiveSession } from '../dashboard/sessions/users.repository';
import { DashboardGenerationsService, GenerationDetailReply, OverviewReply } from './dashboard-generations.service';

const generationId = () => new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError('No generation with that id.') });

/** Overview, and the account's generations. */
@Controller('dashboard/api')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardGenerationsController {
  constructor(private readonly generations: DashboardGenerationsService) {}

  @Get('overview')
  @RequiresRole('viewer')
  overview(@CurrentSession() session: LiveSession): Promise<OverviewReply> {
    return this.generations.overview(session);
  }

  @Get('generations')
  @RequiresRole('viewer')
  list(@CurrentSession() session: LiveSession, @Query() query: ListGenerationsQueryDto): Promise<ListGenerationsReply> {
    return this.generations.list(session.accountId, query);
  }

  @Get('generations/:id')
  @RequiresRole('viewer')
  detail(@CurrentSession() session: LiveSession, @Param('id', generationId()) id: string): Promise<GenerationDetailReply> {
    return this.generations.detail(session.accountId, id);
  }

  @Post('generations/:id/cancel')
  @RequiresRole('developer')
  @HttpCode(200)
  cancel(@CurrentSession() session: LiveSession, @Param('id', generationId()) id: string): Promise<GenerationRecord> {
    return this.generations.cancel(session.accountId, id);
  }

  @Post('generations/:id/redeliver')
  @RequiresRole('developer')
  @HttpCode(202)
  redeliver(@CurrentSession() session: LiveSession, @Param('id', generationId()) id: string): Promise<RedeliverWebhookReply> {
    return this.generations.redeliver(session.accountId, id);
  }
}
