// The node test environment, plus a failure counter the distributed harness reads on close() to
// decide whether to print the services' captured output.
const { TestEnvironment } = require('jest-environment-node');

class DistributedTestEnvironment extends TestEnvironment {
  async handleTestEvent(event) {
    if (event.name === 'test_fn_failure' || event.name === 'hook_failure') {
      this.global.__GEN_DIST_FAILURES__ = (this.global.__GEN_DIST_FAILURES__ || 0) + 1;
    }
  }
}

module.exports = DistributedTestEnvironment;
