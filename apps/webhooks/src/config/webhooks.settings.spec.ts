import { ConfigError, EnvReader, ProcessName } from '@gen/config';
import { readWebhooksSettings, resolveWebhooksSettings, WEBHOOKS_DEFAULTS, WEBHOOKS_VARIABLES } from './webhooks.settings';

describe('webhooks settings', () => {
  const read = (env: Record<string, string>, process: ProcessName = 'webhooks') => {
    const reader = new EnvReader(env, process);
    const settings = readWebhooksSettings(reader);
    reader.done();
    return resolveWebhooksSettings(settings);
  };

  it('refuse http and private destinations by default in a distributed deployment, not in standalone', () => {
    expect(read({})).toMatchObject({ allowHttp: false, allowPrivateNetworks: false, allowList: [] });
    expect(read({}, 'standalone')).toMatchObject({ allowHttp: true, allowPrivateNetworks: true, allowList: [] });
  });

  it('default to what the dispatcher was tuned to', () => {
    // The values bench:webhooks measured best; the README's table is checked against the declarations.
    expect(read({})).toMatchObject({ maxInFlight: 1_024, leaseMs: 15_000, claimBatch: 200, insertBatch: 500, newDeliveryPercent: 90 });
    expect(read({})).toEqual({ ...WEBHOOKS_DEFAULTS, allowHttp: false, allowPrivateNetworks: false, allowList: [] });
    expect(WEBHOOKS_DEFAULTS.secretLookupTimeoutMs).toBe(2_000);
  });

  it('settings built in code (tests, benchmarks) take the defaults for what they leave out, an explicit undefined too', () => {
    expect(resolveWebhooksSettings({ allowHttp: true, allowPrivateNetworks: true, allowList: [] })).toMatchObject(WEBHOOKS_DEFAULTS);
    expect(resolveWebhooksSettings({ allowHttp: true, allowPrivateNetworks: true, allowList: [], claimBatch: undefined }).claimBatch).toBe(200);
  });

  it('read every tuning variable into the field of its name', () => {
    const env = Object.fromEntries(Object.values(WEBHOOKS_VARIABLES).map((variable) => [variable.name, '16']));
    const settings = read({ ...env, WEBHOOK_LEASE_MS: '9000', WEBHOOK_POLL_LIMIT: '100', WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_NOT_STARTED_RETRY_MS: '100' });
    expect(settings).toMatchObject({ claimBatch: 16, insertConcurrency: 16, recordBatch: 16, admissionWaitMs: 16, leaseMs: 9_000, pollLimit: 100 });
  });

  it('stop start-up naming each bad variable', () => {
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
