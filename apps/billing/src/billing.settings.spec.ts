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
    });
  });

  it('reads each variable into the field BillingModule.register takes', () => {
    expect(read({ BILLING_RESERVE_BATCH_MAX: '7', BILLING_SETTLE_BATCH_MAX: '9', BILLING_CONFLICT_ATTEMPTS: '5', BILLING_OUTBOX_POLL_MS: '250', BILLING_OUTBOX_LEASE_MS: '5000' })).toEqual({
      reserveBatchMax: 7,
      settleBatchMax: 9,
      conflictAttempts: 5,
      outboxPollMs: 250,
      outboxLeaseMs: 5000,
    });
  });

  it('stops start-up naming a bad value', () => {
    expect(() => read({ BILLING_RESERVE_BATCH_MAX: '0' })).toThrow(ConfigError);
    expect(() => read({ BILLING_RESERVE_BATCH_MAX: '0' })).toThrow(/BILLING_RESERVE_BATCH_MAX/);
  });
});
