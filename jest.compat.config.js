// `npm run test:compat`: the support window. Each service at its previous release (release/releases.json,
// built by test/compat/global-setup.ts) beside the others at HEAD, and the other way round: eight
// combinations of the four apps as processes on PostgreSQL and NATS JetStream, like the distributed suite.
const distributed = require('./jest.distributed.config.js');

module.exports = {
  ...distributed,
  testMatch: ['<rootDir>/test/compat/**/*.compat-spec.ts'],
  globalSetup: '<rootDir>/test/compat/global-setup.ts',
  // The two files (one way, the other way) side by side; each runs its four combinations in turn.
  maxWorkers: Number(process.env.DIST_WORKERS || 2),
  testTimeout: 120_000,
};
