// `npm run test:distributed`: the four apps as separate processes (from dist/) on a real PostgreSQL
// server and NATS with JetStream. Every run uses its own database, subject prefix, stream and
// storage folder, and removes them afterwards, so runs can share the servers (CI does).
const base = require('./jest.config.js');

// The server's admin URL: each test file creates (and drops) its own database on it.
process.env.TEST_PG_ADMIN_URL = process.env.DIST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
process.env.DIST_NATS_URL = process.env.DIST_NATS_URL || 'nats://127.0.0.1:4222';

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/distributed/**/*.dist-spec.ts'],
  // No embedded Postgres: only a reachability check of the shared servers.
  globalSetup: '<rootDir>/test/distributed/global-setup.ts',
  globalTeardown: undefined,
  // Records failures so the harness prints the services' logs when a test failed.
  testEnvironment: '<rootDir>/test/distributed/environment.js',
  // Two files at a time: a distributed spec spends most of its time waiting on processes (starts,
  // kills, retries), and every file has its own database, stream, ports and folders. DIST_WORKERS=1
  // runs them one by one (e.g. to read one spec's timing alone).
  maxWorkers: Number(process.env.DIST_WORKERS || 2),
  testTimeout: 120_000,
};
