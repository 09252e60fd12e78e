// Standalone mode as the CLI, the test harness and the benchmarks start it.
export { startStandalone, STANDALONE_DATABASE, type RunningStandalone, type StandaloneOverrides } from './standalone';
export { loadStandaloneConfig, readStandaloneConfig, STANDALONE_VARIABLES, type StandaloneConfig } from './standalone.config';
