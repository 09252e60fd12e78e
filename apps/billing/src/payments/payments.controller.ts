import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  AccountLowBalanceEvent,
  CheckoutReply,
  Events,
  GetTopUpRequest,
  SetTopUpRequest,
  TopUpView,
  CreateCheckoutRequest,
  CreatePortalRequest,
  ListInvoicesReply,
  ListInvoicesRequest,
  ListPurchasesReply,
  ListPurchasesRequest,
  PaymentsOverview,
  PaymentsOverviewRequest,
  PortalReply,
  StripeEventReply,
  StripeEventRequest,
  Subjects,
  SubscribeReply,
  SubscribeRequest,
} from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { PaymentsService } from './payments.service';
import { StripeEventsService } from './stripe-events.service';
import { SubscriptionsService } from './subscriptions.service';
import { TopUpsService } from './top-ups.service';

/** Payments' message handlers: one line each into PaymentsService. */
@Controller()
@UseFilters(RpcErrorFilter)
export class PaymentsController {
  constructor(
    private readonly payments: PaymentsService,
    private readonly events: StripeEventsService,
    private readonly subscriptions: SubscriptionsService,
    private readonly topUps: TopUpsService,
  ) {}

  @MessagePattern(Subjects.billingPaymentsTopUpGet)
  topUp(@Payload() request: GetTopUpRequest): Promise<TopUpView> {
    return this.topUps.view(request.accountId);
  }

  @MessagePattern(Subjects.billingPaymentsTopUpSet)
  setTopUp(@Payload() request: SetTopUpRequest): Promise<TopUpView> {
    return this.topUps.set(request);
  }

  /** `account.low_balance` (billing's own event): the automatic top-up of the crossing. */
  @EventPattern(Events.accountLowBalance)
  onLowBalance(@Payload() event: AccountLowBalanceEvent): Promise<void> {
    return this.topUps.onLowBalance(event);
  }

  @MessagePattern(Subjects.billingStripeEvent)
  stripeEvent(@Payload() request: StripeEventRequest): Promise<StripeEventReply> {
    return this.events.handle(request);
  }

  @MessagePattern(Subjects.billingPaymentsSubscribe)
  subscribe(@Payload() request: SubscribeRequest): Promise<SubscribeReply> {
    return this.subscriptions.subscribe(request);
  }

  @MessagePattern(Subjects.billingPaymentsOverview)
  overview(@Payload() request: PaymentsOverviewRequest): Promise<PaymentsOverview> {
    return this.payments.overview(request);
  }

  @MessagePattern(Subjects.billingPaymentsCheckout)
  checkout(@Payload() request: CreateCheckoutRequest): Promise<CheckoutReply> {
    return this.payments.checkout(request);
  }

  @MessagePattern(Subjects.billingPaymentsPortal)
  portal(@Payload() request: CreatePortalRequest): Promise<PortalReply> {
    return this.payments.portal(request);
  }

  @MessagePattern(Subjects.billingPaymentsInvoices)
  invoices(@Payload() request: ListInvoicesRequest): Promise<ListInvoicesReply> {
    return this.payments.invoices(request);
  }

  @MessagePattern(Subjects.billingPaymentsPurchases)
  purchases(@Payload() request: ListPurchasesRequest): Promise<ListPurchasesReply> {
    return this.payments.purchases(request);
  }
}
