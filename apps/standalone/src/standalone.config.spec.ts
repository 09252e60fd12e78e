import { resolve } from 'node:path';
import { ConfigError } from '@gen/config';
import { loadStandaloneConfig } from './standalone.config';

/** A key, so that loading does not make one in a data folder (that path has its own, integration, tests). */
const KEY = Buffer.alloc(32, 1).toString('base64');

describe('standalone configuration', () => {
  it("composes the four services' declarations with standalone's defaults", () => {
    const config = loadStandaloneConfig({ WEBHOOK_SECRET_ENCRYPTION_KEY: KEY, DATA_DIR: 'somewhere' });
    expect(config.ops).toMatchObject({ http: { port: 3000, host: '127.0.0.1' }, shutdown: { delayMs: 0 } });
    expect(config).toMatchObject({ dataDir: resolve('somewhere'), outputsDir: resolve('somewhere', 'outputs'), databaseUrl: null, embeddedPgPort: 0, demoCredits: 1000 });
    expect(config.gateway.settings).toMatchObject({ outputsDir: resolve('somewhere', 'outputs'), webhookPolicy: { allowHttp: true, allowPrivate: true, allowList: [] } });
    expect(config.generation).toMatchObject({ upstreamAllowPrivateNetworks: true, maxAttempts: 3, engineTimeoutMs: 120_000, cdnBaseUrl: 'http://localhost:3000/cdn' });
    expect(config.webhooks).toMatchObject({ allowHttp: true, allowPrivateNetworks: true, claimBatch: 200 });
  });

  it('reads the same variables as the services do, the tuning of generation and webhooks included', () => {
    const config = loadStandaloneConfig({
      WEBHOOK_SECRET_ENCRYPTION_KEY: KEY,
      PORT: '4000',
      JOB_MAX_ATTEMPTS: '5',
      ENGINE_TIMEOUT_MS: '1000',
      WEBHOOK_CLAIM_BATCH: '10',
      WEBHOOK_ALLOW_HTTP: 'false',
      DATABASE_URL: 'postgres://db/gen',
    });
    expect(config.publicBaseUrl).toBe('http://localhost:4000');
    expect(config.generation).toMatchObject({ maxAttempts: 5, engineTimeoutMs: 1000, cdnBaseUrl: 'http://localhost:4000/cdn' });
    expect(config.webhooks).toMatchObject({ claimBatch: 10, allowHttp: false });
    expect(config.gateway.settings.webhookPolicy.allowHttp).toBe(false);
    expect(config.databaseUrl).toBe('postgres://db/gen');
  });

  it("stops with one message naming every bad variable, whichever service's it is", () => {
    let error: unknown;
    try {
      loadStandaloneConfig({ WEBHOOK_SECRET_ENCRYPTION_KEY: KEY, PORT: 'x', ENGINE_LATENCY_SCALE: '-2', WEBHOOK_LEASE_MS: '1', SIGNUP_CREDITS: 'lots', DEMO_CREDITS: '-1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const named = (error as ConfigError).problems.map((p) => p.split(' ')[0]);
    expect(named.sort()).toEqual(['DEMO_CREDITS', 'ENGINE_LATENCY_SCALE', 'PORT', 'SIGNUP_CREDITS', 'WEBHOOK_LEASE_MS']);
  });
});
