import type { Provider, Type } from '@nestjs/common';
import { BillingPageService } from './billing-page.service';
import { DashboardBillingController } from './dashboard-billing.controller';
import { StripeWebhookController } from './stripe-webhook.controller';
import { StripeWebhookRelay } from './stripe-webhook.relay';

/**
 * Payments on the gateway (docs/operations/payments.md): the Stripe webhook and the dashboard's
 * Billing page. Added with the dashboard's parts: both belong to the HTTP apps only.
 */
export const PAYMENTS_PARTS: { controllers: Type[]; providers: Provider[] } = {
  controllers: [StripeWebhookController, DashboardBillingController],
  providers: [StripeWebhookRelay, BillingPageService],
};
