import { Controller, Get, Query, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { LedgerReply, UsageReply } from '@gen/contracts';
import type { FastifyReply } from 'fastify';
import { ExportCreditLedger } from './export-credit-ledger.service';
import { GetCreditLedger } from './get-credit-ledger.service';
import { GetUsageSummary } from './get-usage-summary.service';
import { LedgerQueryDto } from './ledger.dto';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { UsageQueryDto } from './usage.dto';

/** The Usage page: the credit ledger (as GET /api/v1/credits/ledger), spending per day and model, CSV export. */
@Controller('dashboard/api/usage')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardUsageController {
  constructor(
    private readonly ledger: GetCreditLedger,
    private readonly usage: GetUsageSummary,
    private readonly exportLedger: ExportCreditLedger,
  ) {}

  @Get('ledger')
  @RequiresRole('viewer')
  page(@CurrentSession() session: LiveSession, @Query() query: LedgerQueryDto): Promise<LedgerReply> {
    return this.ledger.execute({ ...query, accountId: session.accountId });
  }

  @Get('summary')
  @RequiresRole('viewer')
  summary(@CurrentSession() session: LiveSession, @Query() query: UsageQueryDto): Promise<UsageReply> {
    return this.usage.execute({ accountId: session.accountId, days: query.days ?? 30 });
  }

  /** The whole ledger as a CSV download, streamed. */
  @Get('ledger.csv')
  @RequiresRole('viewer')
  async csv(@CurrentSession() session: LiveSession, @Res() reply: FastifyReply): Promise<void> {
    const stream = await this.exportLedger.execute({ accountId: session.accountId });
    const day = new Date().toISOString().slice(0, 10);
    await reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="credit-ledger-${day}.csv"`)
      .send(stream);
  }
}
