// `npm test`: unit specs (`*.spec.ts`: no I/O), integration specs (`*.int-spec.ts`: real PostgreSQL,
// NATS, files or child processes) and the standalone end-to-end tier (`*.e2e-spec.ts`).
const { pathsToModuleNameMapper } = require('ts-jest');
const base = require('./tsconfig.base.json');

/** Settings shared with jest.distributed.config.js. */
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }] },
  moduleNameMapper: {
    ...pathsToModuleNameMapper(base.compilerOptions.paths, { prefix: '<rootDir>/' }),
    // libs/sdk writes its relative imports as ESM needs them (`./client.js`): the TypeScript source here.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  modulePathIgnorePatterns: ['<rootDir>/dist', '<rootDir>/libs/sdk/dist', '<rootDir>/.nx', '<rootDir>/tmp', '<rootDir>/.data'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 30_000,
};

module.exports = {
  // (jest.distributed.config.js reuses these settings)
  ...shared,

  testMatch: [
    '<rootDir>/apps/**/*.spec.ts',
    '<rootDir>/libs/**/*.spec.ts',
    '<rootDir>/apps/**/*.int-spec.ts',
    '<rootDir>/libs/**/*.int-spec.ts',
    '<rootDir>/test/ops/**/*.int-spec.ts',
    '<rootDir>/test/e2e/**/*.e2e-spec.ts',
    '<rootDir>/test/ops/**/*.spec.ts',
  ],
  // Three files at a time on a two-core machine: the e2e files mostly wait on timers, sockets and the
  // database (a run uses about a third of its wall time in CPU). TEST_WORKERS overrides.
  maxWorkers: Number(process.env.TEST_WORKERS || 3),
};
