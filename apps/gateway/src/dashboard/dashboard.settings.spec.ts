import { randomBytes } from 'node:crypto';
import { ConfigError, EnvReader } from '@gen/config';
import { readDashboardSettings, readWebhookPolicy, readWebhookSecretKeys } from './dashboard.settings';

function read<T>(env: Record<string, string>, reader: (e: EnvReader) => T): T {
  const e = new EnvReader(env);
  const value = reader(e);
  e.done();
  return value;
}

describe('dashboard settings', () => {
  it('derives secure cookies and the content origin from the public URLs', () => {
    const https = read({}, (e) => readDashboardSettings(e, { publicBaseUrl: 'https://api.example.com', cdnBaseUrl: 'https://cdn.example.com/o'}));
    expect(https).toMatchObject({ secureCookies: true, publicOrigin: 'https://api.example.com', contentOrigins: ['https://cdn.example.com'] });
    const local = read({}, (e) => readDashboardSettings(e, { publicBaseUrl: 'http://localhost:3000', cdnBaseUrl: 'http://localhost:3000/cdn'}));
    expect(local).toMatchObject({ secureCookies: false, contentOrigins: [], signUp: { enabled: true, plan: 'free', credits: 100 } });
  });

  it('reads the sign-up grant, session lifetimes and lock thresholds', () => {
    const s = read(
      { SIGNUP_CREDITS: '5', SIGNUP_ENABLED: 'false', SESSION_TTL_HOURS: '2', SESSION_IDLE_MINUTES: '30', SIGN_IN_LOCK_AFTER: '2', SIGN_IN_LOCK_MINUTES: '1' },
      (e) => readDashboardSettings(e, { publicBaseUrl: 'http://x', cdnBaseUrl: 'http://x/cdn'}),
    );
    expect(s.signUp).toEqual({ enabled: false, plan: 'free', credits: 5 });
    expect([s.sessionTtlSeconds, s.sessionIdleSeconds]).toEqual([7200, 1800]);
    expect(s.throttle.email).toMatchObject({ lockAfterFailures: 2, freeFailures: 1, lockSeconds: 60 });
  });

  it('requires the encryption key unless a fallback supplies one, and names the variable', () => {
    expect(() => read({}, (e) => readWebhookSecretKeys(e))).toThrow(ConfigError);
    expect(() => read({}, (e) => readWebhookSecretKeys(e))).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY is required/);
    expect(() => read({ WEBHOOK_SECRET_ENCRYPTION_KEY: 'short' }, (e) => readWebhookSecretKeys(e))).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 random bytes/);
    const key = randomBytes(32);
    const old = randomBytes(32);
    const ring = read(
      { WEBHOOK_SECRET_ENCRYPTION_KEY: key.toString('base64'), WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS: old.toString('hex') },
      (e) => readWebhookSecretKeys(e),
    );
    expect(ring.current.equals(key)).toBe(true);
    expect(ring.previous.map((k) => k.toString('hex'))).toEqual([old.toString('hex')]);
    expect(read({}, (e) => readWebhookSecretKeys(e, () => key.toString('hex'))).current.equals(key)).toBe(true);
  });

  it('reads the webhook policy the webhooks service uses, and refuses a bad allow list', () => {
    expect(read({ WEBHOOK_ALLOW_HTTP: 'true' }, (e) => readWebhookPolicy(e, { allowHttp: false, allowPrivate: false }))).toEqual({
      allowHttp: true,
      allowPrivate: false,
      allowList: [],
    });
    expect(() => read({ WEBHOOK_ALLOW_LIST: 'not a host!' }, (e) => readWebhookPolicy(e, { allowHttp: false, allowPrivate: false }))).toThrow(/WEBHOOK_ALLOW_LIST/);
  });
});
