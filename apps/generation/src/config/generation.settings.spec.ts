import { ConfigError, EnvReader, ProcessName, readOpsConfig } from '@gen/config';
import { readGenerationServiceSettings } from './generation.settings';

function read(env: Record<string, string>, process: ProcessName = 'generation') {
  const reader = new EnvReader(env, process);
  const settings = readGenerationServiceSettings(reader, readOpsConfig(reader), 'generation-1');
  reader.done();
  return settings;
}

function problems(env: Record<string, string>): string[] {
  try {
    read(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('generation settings', () => {
  it('default to the documented values, outputs under the gateway the public URL names', () => {
    expect(read({})).toEqual({
      storageDir: '.data/outputs',
      storage: { driver: 'local', dir: '.data/outputs' },
      settings: {
        workerConcurrency: 8,
        providerConcurrency: 256,
        providerParking: true,
        providerCheckIntervalMs: 100,
        providerCheckBatch: 200,
        providerCheckJitterPercent: 20,
        leaseMs: 15_000,
        maxAttempts: 3,
        pollIntervalMs: 500,
        engineTimeoutMs: 120_000,
        latencyScale: 1,
        queueCapPerSlot: 10,
        catalogueRefreshMs: 1_000,
        upstreamAllowPrivateNetworks: false,
        espeakPath: 'espeak-ng',
        jobAdmitBatch: 100,
        batchKeepFreePercent: 10,
        batchYieldBusyPercent: 70,
        batchAdmitPerPass: 24,
        batchMaxInFlight: 500,
        jobFinishBatch: 100,
      outboxBatch: 50,
      outboxLeaseMs: 10_000,
      outboxRetentionHours: 24,
        outputRetentionSeconds: 168 * 3600,
        outputSweepIntervalMs: 60_000,
        cdnBaseUrl: 'http://localhost:3000/cdn',
        workerId: 'generation-1',
        drainTimeoutMs: 20_000,
        providerCallbacks: { baseUrl: 'http://localhost:3000', key: null, keyFile: null },
      },
    });
    expect(read({ PUBLIC_BASE_URL: 'https://api.example.com' }).settings.cdnBaseUrl).toBe('https://api.example.com/cdn');
    expect(read({ CDN_BASE_URL: 'https://cdn.example.com/o/' }).settings.cdnBaseUrl).toBe('https://cdn.example.com/o');
  });

  it('read provider callbacks: their URL base (PUBLIC_BASE_URL unless set apart) and a 32-byte key', () => {
    const key = Buffer.alloc(32, 9);
    expect(read({ PUBLIC_BASE_URL: 'https://api.example.com', PROVIDER_CALLBACK_KEY: key.toString('base64') }).settings.providerCallbacks).toEqual({
      baseUrl: 'https://api.example.com',
      key,
      keyFile: null,
    });
    expect(read({ PROVIDER_CALLBACK_BASE_URL: 'https://hooks.example.com/', PROVIDER_CALLBACK_KEY: key.toString('hex') }).settings.providerCallbacks).toMatchObject({
      baseUrl: 'https://hooks.example.com',
      key,
    });
    expect(problems({ PROVIDER_CALLBACK_KEY: 'short' })).toEqual([
      `PROVIDER_CALLBACK_KEY must be 32 random bytes in base64 or hex, e.g. from: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`,
    ]);
    expect(problems({ PROVIDER_CALLBACK_BASE_URL: 'ftp://x' })).toEqual(['PROVIDER_CALLBACK_BASE_URL must use http: or https: (got "ftp:")']);
  });

  it('give running jobs most of the shutdown budget, and read hours as seconds', () => {
    expect(read({ SHUTDOWN_TIMEOUT_MS: '8000', OUTPUT_RETENTION_HOURS: '2' }).settings).toMatchObject({ drainTimeoutMs: 3_000, outputRetentionSeconds: 7_200 });
  });

  it('check ENGINE_LATENCY_SCALE as standalone always did (a number, not negative)', () => {
    expect(read({ ENGINE_LATENCY_SCALE: '0' }).settings.latencyScale).toBe(0);
    expect(read({ ENGINE_LATENCY_SCALE: '1.5' }).settings.latencyScale).toBe(1.5);
    expect(problems({ ENGINE_LATENCY_SCALE: 'fast' })).toEqual(['ENGINE_LATENCY_SCALE must be a number (got "fast")']);
    expect(problems({ ENGINE_LATENCY_SCALE: '-1' })).toEqual(['ENGINE_LATENCY_SCALE must be between 0 and inf (got -1)']);
  });

  it('stop start-up naming every bad variable, and a retired one still set', () => {
    expect(problems({ WORKER_CONCURRENCY: '0', JOB_LEASE_MS: 'long', CATALOGUE_REFRESH_MS: '10', MODEL_ENGINES: '{}' })).toEqual([
      expect.stringMatching(/^MODEL_ENGINES is no longer read: .*models sync/),
      'WORKER_CONCURRENCY must be between 1 and 1000 (got 0)',
      'JOB_LEASE_MS must be an integer (got "long")',
      'CATALOGUE_REFRESH_MS must be between 100 and 5000 (got 10)',
    ]);
  });
});
