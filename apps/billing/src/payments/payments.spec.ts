import type Stripe from 'stripe';
import { ValidationError } from '@gen/errors';
import { formatMoney } from './money';
import { parseStripeEvent } from './payment-events.service';
import { checkPack } from './payments.service';
import { subscriptionState } from './subscriptions.service';

const pack = { id: 'starter', name: 'Starter', credits: 500, unitAmount: 500, currency: 'usd', active: true };

describe('payments: the pure parts', () => {
  it('reads a Stripe event: id, type, created (seconds) and data.object', () => {
    const parsed = parseStripeEvent({ id: 'evt_1', object: 'event', type: 'charge.refunded', created: 1_764_000_000, data: { object: { id: 'ch_1' } } });
    expect(parsed).toEqual({ record: { eventId: 'evt_1', type: 'charge.refunded', created: new Date(1_764_000_000_000) }, object: { id: 'ch_1' } });
  });

  it.each([
    ['no id', { type: 't', created: 1, data: { object: {} } }],
    ['an id that is not an event id', { id: 'cs_1', type: 't', created: 1, data: { object: {} } }],
    ['no type', { id: 'evt_1', created: 1, data: { object: {} } }],
    ['a created that is not seconds', { id: 'evt_1', type: 't', created: '2025-01-01', data: { object: {} } }],
    ['no data.object', { id: 'evt_1', type: 't', created: 1, data: {} }],
  ])('refuses an event with %s', (_what, event) => {
    expect(() => parseStripeEvent(event as Record<string, unknown>)).toThrow(ValidationError);
  });

  it('checks a pack as the CLI defines it', () => {
    expect(checkPack({ ...pack, name: '  Starter  ' })).toEqual(pack);
    expect(() => checkPack({ ...pack, id: 'Starter Pack' })).toThrow(/pack id/);
    expect(() => checkPack({ ...pack, credits: 0 })).toThrow(/pack credits/);
    expect(() => checkPack({ ...pack, credits: 1.5 })).toThrow(/pack credits/);
    expect(() => checkPack({ ...pack, unitAmount: 0 })).toThrow(/pack price/);
    expect(() => checkPack({ ...pack, currency: 'US$' })).toThrow(/pack currency/);
    expect(() => checkPack({ ...pack, name: '' })).toThrow(/pack name/);
  });

  it('formats amounts in the smallest unit, two-decimal and zero-decimal currencies', () => {
    expect(formatMoney(500, 'usd')).toBe('5.00 USD');
    expect(formatMoney(1999, 'eur')).toBe('19.99 EUR');
    expect(formatMoney(500, 'jpy')).toBe('500 JPY');
  });

  it('reads a subscription: the period from its item (newer API versions) or from itself (older ones)', () => {
    const item = { id: 'si_1', price: { id: 'price_pro' }, current_period_start: 100, current_period_end: 200 };
    const newer = { id: 'sub_1', status: 'active', cancel_at_period_end: false, metadata: { account_id: 'a' }, items: { data: [item] } } as unknown as Stripe.Subscription;
    expect(subscriptionState(newer)).toEqual({
      id: 'sub_1',
      status: 'active',
      priceId: 'price_pro',
      itemId: 'si_1',
      accountId: 'a',
      currentPeriodStart: new Date(100_000),
      currentPeriodEnd: new Date(200_000),
      cancelAtPeriodEnd: false,
    });
    const older = { id: 'sub_2', status: 'past_due', cancel_at_period_end: true, metadata: {}, current_period_start: 300, current_period_end: 400, items: { data: [{ id: 'si_2', price: { id: 'price_lite' } }] } } as unknown as Stripe.Subscription;
    expect(subscriptionState(older)).toMatchObject({ accountId: null, currentPeriodStart: new Date(300_000), currentPeriodEnd: new Date(400_000), cancelAtPeriodEnd: true });
  });
});
