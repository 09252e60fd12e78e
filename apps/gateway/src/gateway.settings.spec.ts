import { randomBytes } from 'node:crypto';
import { ConfigError, EnvReader, ProcessName } from '@gen/config';
import { DEFAULT_API_KEY_CACHE_SETTINGS } from './settings/api-key-cache.settings';
import { DASHBOARD_VARIABLES, dashboardSettings, readGatewayConfig, readWebhookSecretKeys } from './gateway.settings';
import { DEFAULT_RATE_LIMIT_SETTINGS } from './settings/rate-limit.settings';

function read<T>(env: Record<string, string>, reader: (e: EnvReader) => T, process: ProcessName = 'gateway'): T {
  const e = new EnvReader(env, process);
  const value = reader(e);
  e.done();
  return value;
}

const KEY = randomBytes(32);
const REQUIRED = { DATABASE_URL: 'postgres://db/gen', WEBHOOK_SECRET_ENCRYPTION_KEY: KEY.toString('base64') };

describe('gateway settings', () => {
  it('a distributed gateway: its defaults, and every shared part read once', () => {
    const config = read(REQUIRED, readGatewayConfig);
    expect(config.ops).toMatchObject({ http: { port: 3000, host: '0.0.0.0' }, shutdown: { delayMs: 2_000, timeoutMs: 25_000 } });
    expect(config.settings).toEqual({
      syncWaitMs: 30_000,
      streamsPerAccount: 20,
      streamHeartbeatMs: 15_000,
      auditRetentionDays: 365,
      catalogueMaxStaleMs: 5_000,
      cdnBaseUrl: 'http://localhost:3000/cdn',
      finishedRecordsMaxEntries: 10_000,
      uploads: { maxBytes: 50 * 1024 * 1024, ttlSeconds: 86_400, fetchTimeoutMs: 30_000 },
      batches: { maxBytes: 50 * 1024 * 1024 },
      publicBaseUrl: 'http://localhost:3000',
      bodyLimitBytes: 65_536,
      outputsDir: '.data/outputs',
      storage: { driver: 'local', dir: '.data/outputs' },
      outputUrls: { mode: 'cdn', signedTtlSeconds: 300 },
      rpcTimeoutMs: 10_000,
      webhookPolicy: { allowHttp: false, allowPrivate: false, allowList: [], ports: [] },
      mediaFetchPolicy: { allowHttp: false, allowPrivate: false, allowList: [], ports: [] },
      apiKeyCache: DEFAULT_API_KEY_CACHE_SETTINGS,
      rateLimit: DEFAULT_RATE_LIMIT_SETTINGS,
      payments: { provider: 'none', webhookSecret: null },
    });
    expect(config.nats).toMatchObject({ service: 'gateway', requestTimeoutMs: 10_000 });
    expect(config.secretKeys.current.equals(KEY)).toBe(true);
  });

  it('stops start-up naming every bad or missing variable at once', () => {
    let error: unknown;
    try {
      read({ SYNC_WAIT_MS: '-1', SIGN_IN_LOCK_AFTER: '1', WEBHOOK_ALLOW_LIST: 'not a host!', PUBLIC_BASE_URL: 'nowhere' }, readGatewayConfig);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    for (const name of ['DATABASE_URL is required', 'SYNC_WAIT_MS', 'SIGN_IN_LOCK_AFTER', 'WEBHOOK_ALLOW_LIST', 'PUBLIC_BASE_URL', 'WEBHOOK_SECRET_ENCRYPTION_KEY is required']) {
      expect(problems.some((p) => p.includes(name))).toBe(true);
    }
  });

  it('payments: Stripe needs the webhook signing secret, which must look like one', () => {
    expect(read({ ...REQUIRED, PAYMENTS_PROVIDER: 'stripe', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }, readGatewayConfig).settings.payments).toEqual({ provider: 'stripe', webhookSecret: 'whsec_abc' });
    expect(() => read({ ...REQUIRED, PAYMENTS_PROVIDER: 'stripe' }, readGatewayConfig)).toThrow(/STRIPE_WEBHOOK_SECRET is required with PAYMENTS_PROVIDER=stripe/);
    expect(() => read({ ...REQUIRED, PAYMENTS_PROVIDER: 'stripe', STRIPE_WEBHOOK_SECRET: 'sk_test_wrong' }, readGatewayConfig)).toThrow(/STRIPE_WEBHOOK_SECRET/);
    // The secret alone, without the provider, is not used (payments stay off).
    expect(read({ ...REQUIRED, STRIPE_WEBHOOK_SECRET: 'whsec_abc' }, readGatewayConfig).settings.payments).toEqual({ provider: 'none', webhookSecret: null });
  });

  it('derives secure cookies and the content origin from the public URLs', () => {
    const defaults = read({}, (e) => e.readAll(DASHBOARD_VARIABLES));
    const https = dashboardSettings(defaults, { publicBaseUrl: 'https://api.example.com', cdnBaseUrl: 'https://cdn.example.com/o' });
    expect(https).toMatchObject({ secureCookies: true, publicOrigin: 'https://api.example.com', contentOrigins: ['https://cdn.example.com'] });
    const local = dashboardSettings(defaults, { publicBaseUrl: 'http://localhost:3000', cdnBaseUrl: 'http://localhost:3000/cdn' });
    expect(local).toMatchObject({ secureCookies: false, contentOrigins: [], signUp: { mode: 'verified', plan: 'free', credits: 0 } });
    expect(local.emailVerification).toEqual({ ttlSeconds: 48 * 3600, mailWindowSeconds: 300 });
  });

  it('sign-up: open with a grant in standalone, verified and without credits when distributed', () => {
    const standalone = read({}, (e) => e.readAll(DASHBOARD_VARIABLES), 'standalone');
    expect([standalone.signUpMode, standalone.signUpCredits]).toEqual(['open', 100]);
    const distributed = read({}, (e) => e.readAll(DASHBOARD_VARIABLES), 'gateway');
    expect([distributed.signUpMode, distributed.signUpCredits]).toEqual(['verified', 0]);
    expect(read({ SIGNUP_MODE: 'invite' }, (e) => e.readAll(DASHBOARD_VARIABLES)).signUpMode).toBe('invite');
    expect(() => read({ SIGNUP_MODE: 'closed' }, (e) => e.readAll(DASHBOARD_VARIABLES))).toThrow(/SIGNUP_MODE must be one of open, verified, invite \(got "closed"\)/);
  });

  it('stops on SIGNUP_ENABLED=false unless SIGNUP_MODE is invite (ignoring it would open a closed sign-up)', () => {
    expect(() => read({ ...REQUIRED, SIGNUP_ENABLED: 'false' }, readGatewayConfig)).toThrow(/SIGNUP_ENABLED=false closed sign-up, but SIGNUP_MODE replaced it: set SIGNUP_MODE=invite/);
    expect(() => read({ ...REQUIRED, SIGNUP_ENABLED: 'false', SIGNUP_MODE: 'open' }, readGatewayConfig)).toThrow(/SIGNUP_ENABLED=false/);
    expect(read({ ...REQUIRED, SIGNUP_ENABLED: 'false', SIGNUP_MODE: 'invite' }, readGatewayConfig).dashboard.signUp.mode).toBe('invite');
    expect(read({ ...REQUIRED, SIGNUP_ENABLED: 'true' }, readGatewayConfig).dashboard.signUp.mode).toBe('verified');
  });

  it('reads the sign-up grant, session lifetimes and lock thresholds', () => {
    const s = read(
      { SIGNUP_CREDITS: '5', SIGNUP_MODE: 'invite', SESSION_TTL_HOURS: '2', SESSION_IDLE_MINUTES: '30', SIGN_IN_LOCK_AFTER: '2', SIGN_IN_LOCK_MINUTES: '1' },
      (e) => dashboardSettings(e.readAll(DASHBOARD_VARIABLES), { publicBaseUrl: 'http://x', cdnBaseUrl: 'http://x/cdn' }),
    );
    expect(s.signUp).toEqual({ mode: 'invite', plan: 'free', credits: 5 });
    expect([s.sessionTtlSeconds, s.sessionIdleSeconds]).toEqual([7200, 1800]);
    expect(s.throttle.email).toMatchObject({ lockAfterFailures: 2, freeFailures: 1, lockSeconds: 60 });
    expect(s.throttle.address).toMatchObject({ lockAfterFailures: 50, freeFailures: 10, lockSeconds: 60 });
  });

  it('requires the encryption key unless a fallback supplies one, and names the variable', () => {
    expect(() => read({}, (e) => readWebhookSecretKeys(e))).toThrow(ConfigError);
    expect(() => read({}, (e) => readWebhookSecretKeys(e))).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY is required/);
    expect(() => read({ WEBHOOK_SECRET_ENCRYPTION_KEY: 'short' }, (e) => readWebhookSecretKeys(e))).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 random bytes/);
    expect(() => read({}, (e) => readWebhookSecretKeys(e, () => 'short'))).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 random bytes/);
    const old = randomBytes(32);
    const ring = read(
      { WEBHOOK_SECRET_ENCRYPTION_KEY: KEY.toString('base64'), WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS: old.toString('hex') },
      (e) => readWebhookSecretKeys(e),
    );
    expect(ring.current.equals(KEY)).toBe(true);
    expect(ring.previous.map((k) => k.toString('hex'))).toEqual([old.toString('hex')]);
    expect(() => read({ WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS: `${old.toString('hex')},nope` }, (e) => readWebhookSecretKeys(e, () => KEY.toString('hex')))).toThrow(
      /WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS: entry 2 must be 32 random bytes/,
    );
    expect(read({}, (e) => readWebhookSecretKeys(e, () => KEY.toString('hex'))).current.equals(KEY)).toBe(true);
  });
});

describe('gateway settings: API key cache and rate-limit slices', () => {
  it('reach the gateway under their fields, and a bad value names its variable', () => {
    const config = read({ ...REQUIRED, API_KEY_CACHE_TTL_MS: '2500', RATE_LIMIT_SLICE_SHARE: '4' }, readGatewayConfig);
    expect(config.settings.apiKeyCache?.ttlMs).toBe(2_500);
    expect(config.settings.rateLimit?.sliceShareDivisor).toBe(4);
    expect(() => read({ ...REQUIRED, API_KEY_CACHE_TTL_MS: 'soon' }, readGatewayConfig)).toThrow(ConfigError);
    expect(() => read({ ...REQUIRED, API_KEY_CACHE_TTL_MS: 'soon' }, readGatewayConfig)).toThrow(/API_KEY_CACHE_TTL_MS must be an integer/);
  });

  it('media fetches have their own allow-list: WEBHOOK_ALLOW_LIST does not open it', () => {
    const config = read({ ...REQUIRED, WEBHOOK_ALLOW_LIST: '10.0.0.5', WEBHOOK_ALLOWED_PORTS: '443' }, readGatewayConfig);
    expect(config.settings.webhookPolicy.allowList).toHaveLength(1);
    expect(config.settings.mediaFetchPolicy).toEqual({ allowHttp: false, allowPrivate: false, allowList: [], ports: [443] });
  });
});
