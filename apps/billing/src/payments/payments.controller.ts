import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CheckoutReply,
  CreateCheckoutRequest,
  CreatePortalRequest,
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

/** Payments' message handlers: one line each into PaymentsService. */
@Controller()
@UseFilters(RpcErrorFilter)
export class PaymentsController {
  constructor(
    private readonly payments: PaymentsService,
    private readonly events: StripeEventsService,
    private readonly subscriptions: SubscriptionsService,
  ) {}

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

  @MessagePattern(Subjects.billingPaymentsPurchases)
  purchases(@Payload() request: ListPurchasesRequest): Promise<ListPurchasesReply> {
    return this.payments.purchases(request);
  }
}
