// The generation service as other processes compose it (standalone, the CLI) and embed it (engines and
// models of their own): its module, database, settings, catalogue types and operator modules.
export { GenerationModule } from './generation.module';
export { generationDatabaseOptions, openGenerationDatabase } from './generation.database';
export type { GenerationSettings } from './config/generation.tokens';
export { readGenerationSettings } from './config/generation.settings';
export { CATALOGUE, type ModelDefinitionInput } from './catalogue/catalogue';
export { EngineError, type Engine, type EngineOutput, type EngineRequest } from './ports/engine';
export { InstantEngine } from './engines/instant.engine';
export { parseCatalogueFile, type ModelEntry } from './catalogue/model-entry';
export type { EngineKind } from './ports/engine-kind';
export { JobAdminModule } from './admin/job-admin.module';
export { JobAdminService, type JobInspection } from './admin/job-admin.service';
export { CatalogueAdminService, type ListedModel } from './catalogue/catalogue-admin.service';
export { CatalogueAdminModule } from './catalogue-admin.module';
export { engineKinds } from './engine-kinds';
export { JobJanitorService } from './jobs/runtime/job-janitor.service';
export { ParkedJobs } from './jobs/runtime/parked-jobs.service';
export { BatchFeeder } from './batches/batch-feeder.service';
export { EventLoopLoad } from './batches/event-loop-load';
export { BatchFeedRepository } from './batches/batch-feed.repository';
export { generationRelease } from './generation.release';
