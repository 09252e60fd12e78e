import type { Provider, Type } from '@nestjs/common';
import { BillingNoticesController } from './billing-notices.controller';
import { BillingNotices } from './billing-notices.service';
import { BillingPageService } from './billing-page.service';
import { DashboardBillingController } from './dashboard-billing.controller';
import { StripeWebhookController } from './stripe-webhook.controller';
import { StripeWebhookRelay } from './stripe-webhook.relay';

/**
 * Payments on the gateway (docs/operations/payments.md): the Stripe webhook, the dashboard's
 * Billing page, and the notices billing sends about an account's payments (audit log, mail to
 * owners). Added with the dashboard's parts: they belong to the HTTP apps only.
 */
export const PAYMENTS_PARTS: { controllers: Type[]; providers: Provider[] } = {
  controllers: [StripeWebhookController, DashboardBillingController, BillingNoticesController],
  providers: [StripeWebhookRelay, BillingPageService, BillingNotices],
};
