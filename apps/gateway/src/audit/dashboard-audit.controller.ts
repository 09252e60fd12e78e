import { Controller, Get, Query, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { AuditPageReply } from '@gen/contracts';
import type { FastifyReply } from 'fastify';
import { AUDIT_ACTIONS } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { AuditFilterDto, AuditQueryDto } from './audit-query.dto';

/** Settings, then Audit log: the account's entries, filtered by actor and action, and their CSV export. */
@Controller('dashboard/api/audit')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardAuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @RequiresRole('admin')
  async page(@CurrentSession() session: LiveSession, @Query() query: AuditQueryDto): Promise<AuditPageReply> {
    const [page, actors] = await Promise.all([this.audit.page(session.accountId, query), this.audit.actors(session.accountId)]);
    return { ...page, actions: AUDIT_ACTIONS, actors };
  }

  /** Every entry matching the filters as a CSV download, streamed. */
  @Get('entries.csv')
  @RequiresRole('admin')
  async csv(@CurrentSession() session: LiveSession, @Query() query: AuditFilterDto, @Res() reply: FastifyReply): Promise<void> {
    const stream = await this.audit.csv(session.accountId, query);
    const day = new Date().toISOString().slice(0, 10);
    await reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="audit-log-${day}.csv"`)
      .send(stream);
  }
}
