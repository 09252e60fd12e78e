import { resolve } from 'node:path';
import { ConfigError } from '@gen/config';
import { cliEnv, readCliDatabaseSettings, readCliKeyWebhookSettings, readCliOutputBaseUrl } from './cli.settings';

function read<T>(env: Record<string, string>, reader: (e: ReturnType<typeof cliEnv>) => T): T {
  const e = cliEnv(env);
  const value = reader(e);
  e.done();
  return value;
}

describe('the CLI settings', () => {
  it('work on a server with DATABASE_URL, else on the standalone data folder, and say which DATA_DIR', () => {
    expect(read({ DATABASE_URL: 'postgres://db/gen' }, readCliDatabaseSettings)).toMatchObject({ databaseUrl: 'postgres://db/gen' });
    expect(read({}, readCliDatabaseSettings)).toEqual({ databaseUrl: null, dataDir: resolve('.data'), dataDirSource: 'DATA_DIR is not set: the default .data' });
    expect(read({ DATA_DIR: 'elsewhere' }, readCliDatabaseSettings)).toMatchObject({ dataDir: resolve('elsewhere'), dataDirSource: 'DATA_DIR=elsewhere' });
    expect(() => read({ DATABASE_URL: 'localhost:5432' }, readCliDatabaseSettings)).toThrow(ConfigError);
  });

  it('write output URLs as the generation service does', () => {
    expect(read({}, readCliOutputBaseUrl)).toBe('http://localhost:3000/cdn');
    expect(read({ CDN_BASE_URL: 'https://cdn.example.com/' }, readCliOutputBaseUrl)).toBe('https://cdn.example.com');
  });

  it("check a key's webhook settings as a distributed gateway does: its key required, https to public addresses by default", () => {
    expect(() => read({}, readCliKeyWebhookSettings)).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY is required/);
    const settings = read({ WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 2).toString('hex') }, readCliKeyWebhookSettings);
    expect(settings.webhookPolicy).toEqual({ allowHttp: false, allowPrivate: false, allowList: [], ports: [] });
  });
});
