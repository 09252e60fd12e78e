import { ConfigError, EnvReader } from '@gen/config';
import { readBillingSettings } from './billing.settings';
import { DEFAULT_BILLING_BATCH_SETTINGS } from './holds/billing-batch.settings';
import { DEFAULT_BILLING_OUTBOX_SETTINGS } from './low-balance/low-balance-relay.service';

function read(env: Record<string, string>) {
  const reader = new EnvReader(env, 'billing');
  const settings = readBillingSettings(reader);
  reader.done();
  return settings;
}

describe('billing settings', () => {
  it('defaults to the group commit tuning of billing-batch.settings.ts', () => {
    expect(read({})).toEqual({
      ...DEFAULT_BILLING_BATCH_SETTINGS,
      outboxPollMs: DEFAULT_BILLING_OUTBOX_SETTINGS.pollMs,
      outboxLeaseMs: DEFAULT_BILLING_OUTBOX_SETTINGS.leaseMs,
      outboxRetentionHours: 24,
      payments: { provider: 'none', stripe: null, subscriptionGraceHours: 168, sweepMs: 60_000, topUpRetryMinutes: 360 },
    });
  });

  it('reads each variable into the field BillingModule.register takes', () => {
    expect(read({ BILLING_RESERVE_BATCH_MAX: '7', BILLING_SETTLE_BATCH_MAX: '9', BILLING_CONFLICT_ATTEMPTS: '5', BILLING_OUTBOX_POLL_MS: '250', BILLING_OUTBOX_LEASE_MS: '5000', BILLING_OUTBOX_RETENTION_HOURS: '72' })).toEqual({
      reserveBatchMax: 7,
      settleBatchMax: 9,
      conflictAttempts: 5,
      outboxPollMs: 250,
      outboxLeaseMs: 5000,
      outboxRetentionHours: 72,
      payments: { provider: 'none', stripe: null, subscriptionGraceHours: 168, sweepMs: 60_000, topUpRetryMinutes: 360 },
    });
  });

  it('reads payments: Stripe with its key, and its API host, port and protocol for a stand-in or a regional endpoint', () => {
    expect(read({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc' }).payments).toEqual({
      provider: 'stripe',
      stripe: { secretKey: 'sk_test_abc', host: null, port: 443, protocol: 'https' },
      subscriptionGraceHours: 168,
      sweepMs: 60_000,
      topUpRetryMinutes: 360,
    });
    expect(read({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'rk_live_abc', STRIPE_API_HOST: '127.0.0.1', STRIPE_API_PORT: '12111', STRIPE_API_PROTOCOL: 'http' }).payments).toEqual({
      provider: 'stripe',
      stripe: { secretKey: 'rk_live_abc', host: '127.0.0.1', port: 12111, protocol: 'http' },
      subscriptionGraceHours: 168,
      sweepMs: 60_000,
      topUpRetryMinutes: 360,
    });
    expect(read({ SUBSCRIPTION_GRACE_HOURS: '0', PAYMENTS_SWEEP_MS: '5000' }).payments).toMatchObject({ subscriptionGraceHours: 0, sweepMs: 5000 });
    expect(() => read({ SUBSCRIPTION_GRACE_HOURS: '-1' })).toThrow(/SUBSCRIPTION_GRACE_HOURS/);
    expect(read({ TOP_UP_RETRY_MINUTES: '30' }).payments.topUpRetryMinutes).toBe(30);
    expect(() => read({ TOP_UP_RETRY_MINUTES: '0' })).toThrow(/TOP_UP_RETRY_MINUTES/);
  });

  it('stops start-up when Stripe is chosen without a usable key, or a payments value is bad', () => {
    expect(() => read({ PAYMENTS_PROVIDER: 'stripe' })).toThrow(/STRIPE_SECRET_KEY is required with PAYMENTS_PROVIDER=stripe/);
    expect(() => read({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'pk_test_public' })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => read({ PAYMENTS_PROVIDER: 'paypal' })).toThrow(/PAYMENTS_PROVIDER/);
    expect(() => read({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_x', STRIPE_API_PROTOCOL: 'ftp' })).toThrow(/STRIPE_API_PROTOCOL/);
    expect(() => read({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_x', STRIPE_API_PORT: '0' })).toThrow(/STRIPE_API_PORT/);
  });

  it('stops start-up naming a bad value', () => {
    expect(() => read({ BILLING_RESERVE_BATCH_MAX: '0' })).toThrow(ConfigError);
    expect(() => read({ BILLING_RESERVE_BATCH_MAX: '0' })).toThrow(/BILLING_RESERVE_BATCH_MAX/);
  });
});
