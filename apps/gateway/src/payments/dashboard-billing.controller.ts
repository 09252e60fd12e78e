import { Body, Controller, Get, HttpCode, Post, Put, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { Type } from 'class-transformer';
import { CheckoutReply, ListInvoicesReply, ListPurchasesReply, MAX_LOW_BALANCE_THRESHOLD, PaymentsOverview, PLANS, PlanName, PortalReply, SubscribeReply, TopUpView } from '@gen/contracts';
import type { AuditActor } from '../audit-log/audit-actions';
import { CurrentActor } from '../sessions/audit-actor.decorator';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { BillingPageService } from './billing-page.service';

/** Body of POST /dashboard/api/billing/checkout. */
export class CheckoutDto {
  @IsString({ message: 'pack_id: the id of a credit pack from GET /dashboard/api/billing.' })
  @Matches(/^[a-z0-9][a-z0-9_-]{0,63}$/, { message: 'pack_id: the id of a credit pack from GET /dashboard/api/billing.' })
  pack_id!: string;
}

/** Body of POST /dashboard/api/billing/subscription. */
export class SubscribeDto {
  @IsIn(PLANS, { message: `plan: one of ${PLANS.join(', ')}.` })
  plan!: PlanName;
}

const THRESHOLD = `threshold: a whole number of credits from 1 to ${MAX_LOW_BALANCE_THRESHOLD}; a top-up starts when the balance falls below it.`;

/** Body of PUT /dashboard/api/billing/top-up: a pack and a threshold turn it on; `pack_id` null turns it off. */
export class TopUpDto {
  @ValidateIf((body: TopUpDto) => body.pack_id !== null)
  @IsString({ message: 'pack_id: the id of a credit pack, or null to turn automatic top-ups off.' })
  @Matches(/^[a-z0-9][a-z0-9_-]{0,63}$/, { message: 'pack_id: the id of a credit pack, or null to turn automatic top-ups off.' })
  pack_id!: string | null;

  @ValidateIf((body: TopUpDto) => body.pack_id !== null)
  @IsInt({ message: THRESHOLD })
  @Min(1, { message: THRESHOLD })
  @Max(MAX_LOW_BALANCE_THRESHOLD, { message: THRESHOLD })
  threshold!: number;
}

export class PurchasesQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit: a whole number from 1 to 100.' })
  @Min(1, { message: 'limit: a whole number from 1 to 100.' })
  @Max(100, { message: 'limit: a whole number from 1 to 100.' })
  limit?: number;
}

/**
 * The Billing page (docs/guide/billing.md): balance, packs, purchases and receipts for owners and
 * admins; buying and the Stripe customer portal for owners only (they hold the card).
 */
@Controller('dashboard/api/billing')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardBillingController {
  constructor(private readonly billing: BillingPageService) {}

  @Get()
  @RequiresRole('admin')
  overview(@CurrentSession() session: LiveSession): Promise<PaymentsOverview> {
    return this.billing.overview(session.accountId);
  }

  @Get('purchases')
  @RequiresRole('admin')
  purchases(@CurrentSession() session: LiveSession, @Query() query: PurchasesQuery): Promise<ListPurchasesReply> {
    return this.billing.purchases(session.accountId, query.limit ?? 20);
  }

  @Get('invoices')
  @RequiresRole('admin')
  invoices(@CurrentSession() session: LiveSession, @Query() query: PurchasesQuery): Promise<ListInvoicesReply> {
    return this.billing.invoices(session.accountId, query.limit ?? 20);
  }

  @Post('checkout')
  @HttpCode(201)
  @RequiresRole('owner')
  checkout(@CurrentSession() session: LiveSession, @Body() body: CheckoutDto): Promise<CheckoutReply> {
    return this.billing.checkout(session.accountId, body.pack_id, session.email);
  }

  @Post('subscription')
  @HttpCode(200)
  @RequiresRole('owner')
  subscribe(@CurrentSession() session: LiveSession, @Body() body: SubscribeDto): Promise<SubscribeReply> {
    return this.billing.subscribe(session.accountId, body.plan, session.email);
  }

  @Get('top-up')
  @RequiresRole('admin')
  topUp(@CurrentSession() session: LiveSession): Promise<TopUpView> {
    return this.billing.topUp(session.accountId);
  }

  @Put('top-up')
  @RequiresRole('owner')
  setTopUp(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Body() body: TopUpDto): Promise<TopUpView> {
    return this.billing.setTopUp(session.accountId, body.pack_id, body.pack_id === null ? null : body.threshold, actor);
  }

  @Post('portal')
  @HttpCode(201)
  @RequiresRole('owner')
  portal(@CurrentSession() session: LiveSession): Promise<PortalReply> {
    return this.billing.portal(session.accountId, session.email);
  }
}
