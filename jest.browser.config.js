// `npm run test:browser`: the dashboard in a real browser (Debian's Chromium driven by playwright-core)
// against standalone. Needs the built dashboard (the npm script builds first) and /usr/bin/chromium
// (or CHROMIUM_PATH); .ci/run installs it.
const base = require('./jest.config.js');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
  maxWorkers: 1,
  testTimeout: 120_000,
};
