import { Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { BatchView, ListBatchesReply } from '@gen/contracts';
import type { FastifyReply } from 'fastify';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { PageQueryDto } from '../http-common/page-query.dto';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { batchId } from './batch-id';
import { BatchQueries } from './batch-queries.service';
import { sendBatchFile } from './batch-request';

/** The account's batches in the dashboard: the same use cases as the API's, for the session's account. */
@Controller('dashboard/api')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardBatchesController {
  constructor(private readonly batches: BatchQueries) {}

  @Get('batches')
  @RequiresRole('viewer')
  list(@CurrentSession() session: LiveSession, @Query() query: PageQueryDto): Promise<ListBatchesReply> {
    return this.batches.list({ accountId: session.accountId, limit: query.limit, cursor: query.cursor });
  }

  @Get('batches/:id')
  @RequiresRole('viewer')
  get(@CurrentSession() session: LiveSession, @Param('id', batchId()) id: string): Promise<BatchView> {
    return this.batches.get({ accountId: session.accountId, batchId: id });
  }

  @Post('batches/:id/cancel')
  @RequiresRole('developer')
  @HttpCode(200)
  cancel(@CurrentSession() session: LiveSession, @Param('id', batchId()) id: string): Promise<BatchView> {
    return this.batches.cancel({ accountId: session.accountId, batchId: id });
  }

  @Get('batches/:id/results')
  @RequiresRole('viewer')
  async results(@CurrentSession() session: LiveSession, @Param('id', batchId()) id: string, @Res() reply: FastifyReply): Promise<void> {
    sendBatchFile(reply, await this.batches.file({ accountId: session.accountId, batchId: id }, 'results'));
  }

  @Get('batches/:id/errors')
  @RequiresRole('viewer')
  async errors(@CurrentSession() session: LiveSession, @Param('id', batchId()) id: string, @Res() reply: FastifyReply): Promise<void> {
    sendBatchFile(reply, await this.batches.file({ accountId: session.accountId, batchId: id }, 'errors'));
  }
}
