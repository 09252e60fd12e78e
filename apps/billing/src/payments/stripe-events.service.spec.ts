import { ServiceUnavailableError, ValidationError } from '@gen/errors';
import type { PaymentEventsService } from './payment-events.service';
import { StripeEventsService } from './stripe-events.service';
import type { SubscriptionsService } from './subscriptions.service';

const event = (type: string, object: Record<string, unknown> = { id: 'x' }) => ({ event: { id: 'evt_1', type, created: 1_764_000_000, data: { object } } });

/** The routing of verified Stripe events: which side handles which type, and payments off. */
describe('StripeEventsService', () => {
  const handled: string[] = [];
  const payments = { onPaymentEvent: async () => (handled.push('payments'), { outcome: 'applied' as const }) } as unknown as PaymentEventsService;
  const subscriptions = { onEvent: async () => (handled.push('subscriptions'), { outcome: 'applied' as const }) } as unknown as SubscriptionsService;
  const settings = { provider: 'stripe' as const, stripe: null, subscriptionGraceHours: 168, sweepMs: 60_000, topUpRetryMinutes: 360 };
  beforeEach(() => handled.splice(0));

  it('sends subscription events and subscription checkouts to the subscriptions side, the rest to payments', async () => {
    const service = new StripeEventsService(payments, subscriptions, settings);
    for (const type of ['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted', 'invoice.paid', 'invoice.payment_failed']) {
      await service.handle(event(type));
    }
    await service.handle(event('checkout.session.completed', { id: 'cs_1', mode: 'subscription' }));
    await service.handle(event('checkout.session.completed', { id: 'cs_2', mode: 'payment' }));
    await service.handle(event('charge.refunded'));
    expect(handled).toEqual([...Array(6).fill('subscriptions'), 'payments', 'payments']);
  });

  it('with payments off, answers 503 (Stripe retries until billing is configured) and handles nothing', async () => {
    const service = new StripeEventsService(payments, subscriptions, { ...settings, provider: 'none' });
    await expect(service.handle(event('checkout.session.completed'))).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(handled).toEqual([]);
  });

  it('refuses a malformed event before anything else', async () => {
    const service = new StripeEventsService(payments, subscriptions, settings);
    await expect(service.handle({ event: { id: 'evt_1' } })).rejects.toBeInstanceOf(ValidationError);
  });
});
