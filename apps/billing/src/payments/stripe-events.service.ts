import { Inject, Injectable } from '@nestjs/common';
import type { BillingPaymentsSettings } from '@gen/config';
import type { StripeEventReply, StripeEventRequest } from '@gen/contracts';
import { ServiceUnavailableError } from '@gen/errors';
import { parseStripeEvent, PaymentEventsService } from './payment-events.service';
import { PAYMENTS_SETTINGS } from './stripe-api';
import { SubscriptionsService } from './subscriptions.service';

/** Event types about subscriptions (and their invoices): SubscriptionsService's. */
const SUBSCRIPTION_TYPES = ['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted', 'invoice.paid', 'invoice.payment_failed'];

/** `billing.stripe.event`: a verified Stripe event, checked and routed to the payments or the subscriptions side. */
@Injectable()
export class StripeEventsService {
  constructor(
    private readonly paymentEvents: PaymentEventsService,
    private readonly subscriptions: SubscriptionsService,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: BillingPaymentsSettings,
  ) {}

  async handle(request: StripeEventRequest): Promise<StripeEventReply> {
    const event = parseStripeEvent(request.event);
    // Stripe retries a 503 for days: the events wait for the operator to turn payments on here too.
    if (this.settings.provider !== 'stripe') throw new ServiceUnavailableError('Billing has PAYMENTS_PROVIDER=none; Stripe events wait until it is set to stripe.', 60);
    const type = event.record.type;
    if (SUBSCRIPTION_TYPES.includes(type) || (type === 'checkout.session.completed' && event.object.mode === 'subscription')) {
      return this.subscriptions.onEvent(event);
    }
    return this.paymentEvents.onPaymentEvent(event);
  }
}
