import { PUBLIC_URL_VARIABLES } from './common';
import { DATABASE_URL, readServiceConfig } from './distributed';
import { ConfigError, EnvReader } from './env';
import { readPublicHttp, TRUST_PROXY } from './http-limits';
import { readOpsConfig } from './ops';
import type { ProcessName, ReadContext } from './variables';

function reading<T>(env: Record<string, string>, context: ProcessName | ReadContext, read: (reader: EnvReader) => T): T {
  const reader = new EnvReader(env, context);
  const value = read(reader);
  reader.done();
  return value;
}

describe('TRUST_PROXY', () => {
  const trust = (value?: string) => reading(value === undefined ? {} : { TRUST_PROXY: value }, 'gateway', (env) => env.read(TRUST_PROXY));

  it('trusts no proxy by default, so X-Forwarded-For cannot choose the client address', () => {
    expect(trust()).toBe(false);
    expect(trust('false')).toBe(false);
  });

  it('accepts a hop count or a list of proxy addresses', () => {
    expect(trust('1')).toBe(1);
    expect(trust('10.0.0.0/8, 127.0.0.1')).toBe('10.0.0.0/8, 127.0.0.1');
  });

  it('refuses anything else with a message naming the variable (no blanket "true")', () => {
    expect(() => trust('true')).toThrow(ConfigError);
    expect(() => trust('everyone')).toThrow(/TRUST_PROXY/);
  });
});

describe('the operational settings every process reads', () => {
  it('listen on PORT/HOST for the API processes and HTTP_PORT/HTTP_HOST for the others, with each one its defaults', () => {
    expect(reading({}, 'gateway', readOpsConfig)).toEqual({
      logLevel: 'info',
      logFormat: null,
      http: { port: 3000, host: '0.0.0.0' },
      shutdown: { delayMs: 2000, timeoutMs: 25_000 },
      rpcTimeoutMs: 10_000,
    });
    expect(reading({}, 'standalone', readOpsConfig)).toMatchObject({ http: { port: 3000, host: '127.0.0.1' }, shutdown: { delayMs: 0 } });
    expect(reading({ PORT: '9999' }, 'billing', readOpsConfig).http).toEqual({ port: 8081, host: '0.0.0.0' });
    expect(reading({}, 'generation', readOpsConfig).http.port).toBe(8082);
    expect(reading({ HTTP_PORT: '9000', HTTP_HOST: '127.0.0.1' }, 'webhooks', readOpsConfig).http).toEqual({ port: 9000, host: '127.0.0.1' });
  });

  it('refuse a shutdown delay that leaves no time to drain, and a log format it does not know', () => {
    expect(() => reading({ SHUTDOWN_DELAY_MS: '30000' }, 'gateway', readOpsConfig)).toThrow(
      /SHUTDOWN_DELAY_MS \(30000\) must be less than SHUTDOWN_TIMEOUT_MS \(25000\)/,
    );
    expect(() => reading({ LOG_FORMAT: 'xml' }, 'gateway', readOpsConfig)).toThrow(/LOG_FORMAT must be one of json, pretty/);
  });
});

describe('a distributed service', () => {
  it('needs DATABASE_URL, and names it; standalone and the CLI do without', () => {
    expect(() => reading({}, 'billing', readServiceConfig)).toThrow(/DATABASE_URL is required/);
    expect(reading({}, 'standalone', (env) => env.read(DATABASE_URL))).toBeNull();
    expect(reading({}, { process: 'cli', mode: 'distributed' }, (env) => env.read(DATABASE_URL))).toBeNull();
    expect(() => reading({ DATABASE_URL: 'mysql://db/gen' }, 'standalone', (env) => env.read(DATABASE_URL))).toThrow(/DATABASE_URL must use postgres: or postgresql:/);
  });

  it('reads its database and NATS, the request timeout from RPC_TIMEOUT_MS and its name as the NATS service', () => {
    const config = reading(
      { DATABASE_URL: 'postgres://db/gen', NATS_SUBJECT_PREFIX: 't1.', RPC_TIMEOUT_MS: '500', MIGRATIONS: 'verify' },
      'webhooks',
      readServiceConfig,
    );
    expect(config.database).toEqual({ url: 'postgres://db/gen', poolSize: 20, migrations: 'verify' });
    expect(config.nats).toEqual({ url: 'nats://127.0.0.1:4222', service: 'webhooks', subjectPrefix: 't1.', streamName: 'GEN_EVENTS', requestTimeoutMs: 500 });
    expect(() => reading({ DATABASE_URL: 'postgres://db/gen', NATS_SUBJECT_PREFIX: 't1' }, 'webhooks', readServiceConfig)).toThrow(
      /NATS_SUBJECT_PREFIX must be a subject token followed by a dot/,
    );
  });
});

describe('the public URLs and HTTP limits', () => {
  it('put outputs under the public URL, itself on PORT, unless set', () => {
    expect(reading({ PORT: '4000' }, 'gateway', (env) => env.readAll(PUBLIC_URL_VARIABLES))).toEqual({
      publicBaseUrl: 'http://localhost:4000',
      cdnBaseUrl: 'http://localhost:4000/cdn',
    });
    // Generation's default is the gateway's (it listens on HTTP_PORT, not PORT).
    expect(reading({ PUBLIC_BASE_URL: 'https://api.example.com/' }, 'generation', (env) => env.readAll(PUBLIC_URL_VARIABLES))).toEqual({
      publicBaseUrl: 'https://api.example.com',
      cdnBaseUrl: 'https://api.example.com/cdn',
    });
  });

  it('bound bodies and the time they may take', () => {
    expect(reading({}, 'gateway', readPublicHttp)).toEqual({
      limits: { bodyLimitBytes: 65_536, headersTimeoutMs: 20_000, bodyTimeoutMs: 30_000, callbackBodyLimitBytes: 512 * 1024 },
      trustProxy: false,
    });
    expect(() => reading({ BODY_LIMIT_BYTES: '100' }, 'gateway', readPublicHttp)).toThrow(/BODY_LIMIT_BYTES must be between 1024 and 10485760/);
  });
});
