export * from './generation.module';
export * from './generation.database';
export * from './generation.tokens';
export * from './catalogue/catalogue';
export * from './engines/engine';
export { InstantEngine } from './engines/instant.engine';
export { JobsRepository } from './jobs/jobs.repository';
export { readModelEngines, parseModelEngines, type ModelEngineBinding } from './remote/model-engines.config';
export type { RemoteEngineSettings } from './remote/remote-engine.settings';
