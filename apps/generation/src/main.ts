import 'reflect-metadata';
import { processIdentity } from '@gen/config';
import { runNatsService } from '@gen/observability';
import { openGenerationDatabase } from './generation.database';
import { GenerationModule } from './generation.module';
import { readGenerationServiceSettings } from './config/generation.settings';
import { generationRelease } from './generation.release';

/** Distributed mode: the generation service (catalogue, queue, engines, outbox relay); health and metrics on HTTP_PORT. */
runNatsService({
  service: 'generation',
  release: generationRelease(),
  readSettings: (env, ops) => readGenerationServiceSettings(env, ops, processIdentity('generation')),
  openDatabase: openGenerationDatabase,
  // New submits go to the other replicas at once; jobs running here finish or are handed back.
  module: (dataSource, { settings, storageDir, storage }) => GenerationModule.register({ dataSource, settings, storageDir, storage, espeakPath: settings.espeakPath }),
});
