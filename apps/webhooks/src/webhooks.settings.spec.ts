import { ConfigError, EnvReader } from '@gen/config';
import { readWebhooksSettings, resolveWebhooksSettings, WEBHOOKS_DEFAULTS } from './webhooks.settings';

describe('webhooks settings', () => {
  const read = (env: Record<string, string>) => {
    const reader = new EnvReader(env);
    const settings = readWebhooksSettings(reader);
    reader.done();
    return resolveWebhooksSettings(settings);
  };

  it('defaults to what the dispatcher was tuned to, and refuses http and private destinations', () => {
    expect(read({})).toEqual({
      allowHttp: false,
      allowPrivateNetworks: false,
      allowList: [],
      pollIntervalMs: 1_000,
      leaseMs: 15_000,
      maxInFlight: 1_024,
      connectionsPerOrigin: 256,
      secretLookupTimeoutMs: 2_000,
      notStartedRetryMs: 1_000,
      claimBatch: 200,
      claimConcurrency: 2,
      pollLimit: 2_000,
      insertBatch: 500,
      insertConcurrency: 2,
      admissionWaitMs: 250,
      recordBatch: 500,
      recordConcurrency: 2,
      newDeliveryPercent: 90,
    });
  });

  it('standalone (no environment read) runs on the same defaults', () => {
    expect(resolveWebhooksSettings({ allowHttp: true, allowPrivateNetworks: true, allowList: [] })).toMatchObject(WEBHOOKS_DEFAULTS);
    expect(resolveWebhooksSettings({ allowHttp: true, allowPrivateNetworks: true, allowList: [], claimBatch: undefined }).claimBatch).toBe(200);
  });

  it('reads every tuning variable', () => {
    expect(
      read({
        WEBHOOK_CLAIM_BATCH: '50',
        WEBHOOK_CLAIM_CONCURRENCY: '4',
        WEBHOOK_INSERT_BATCH: '100',
        WEBHOOK_INSERT_CONCURRENCY: '3',
        WEBHOOK_RECORD_BATCH: '200',
        WEBHOOK_RECORD_CONCURRENCY: '1',
        WEBHOOK_ADMISSION_WAIT_MS: '0',
        WEBHOOK_POLL_LIMIT: '500',
        WEBHOOK_NOT_STARTED_RETRY_MS: '2000',
        WEBHOOK_NEW_DELIVERY_PERCENT: '75',
      }),
    ).toMatchObject({
      claimBatch: 50,
      claimConcurrency: 4,
      insertBatch: 100,
      insertConcurrency: 3,
      recordBatch: 200,
      recordConcurrency: 1,
      admissionWaitMs: 0,
      pollLimit: 500,
      notStartedRetryMs: 2_000,
      newDeliveryPercent: 75,
    });
  });

  it('stops start-up naming each bad variable', () => {
    let error: unknown;
    try {
      read({ WEBHOOK_CLAIM_BATCH: '0', WEBHOOK_NEW_DELIVERY_PERCENT: '150', WEBHOOK_LEASE_MS: '5000', WEBHOOK_ALLOW_LIST: 'not a cidr/99' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['WEBHOOK_CLAIM_BATCH', 'WEBHOOK_NEW_DELIVERY_PERCENT', 'WEBHOOK_LEASE_MS', 'WEBHOOK_ALLOW_LIST']) expect(message).toContain(name);
  });
});
