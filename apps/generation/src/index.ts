// The generation service as other processes compose it (standalone, the CLI) and embed it (engines and
// models of their own): its module, database, settings, catalogue types and operator modules.
export { GenerationModule } from './generation.module';
export { generationDatabaseOptions, openGenerationDatabase } from './generation.database';
export type { GenerationSettings } from './generation.tokens';
export { readGenerationSettings } from './generation.settings';
export { CATALOGUE, type ModelDefinitionInput } from './catalogue/catalogue';
export { EngineError, type Engine, type EngineOutput, type EngineRequest } from './engines/engine';
export { InstantEngine } from './engines/instant.engine';
export { parseCatalogueFile, type ModelEntry } from './catalogue/model-entry';
export type { EngineKind } from './providers';
export { JobAdminModule } from './admin/job-admin.module';
export { JobAdminService, type JobInspection } from './admin/job-admin.service';
export { CatalogueAdminService, type ListedModel } from './catalogue/catalogue-admin.service';
export { CatalogueAdminModule } from './catalogue/catalogue-admin.module';
export { engineKinds } from './engine-kinds';
export { JobJanitorService } from './jobs/job-janitor.service';
export { ParkedJobs } from './jobs/parked-jobs.service';
export { generationRelease } from './generation.release';
