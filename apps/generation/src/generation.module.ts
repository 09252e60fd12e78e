import { DynamicModule, Module } from '@nestjs/common';
import { MetricsRegistry } from '@gen/observability';
import type { DataSource } from 'typeorm';
import { CATALOGUE, ModelDefinition } from './catalogue/catalogue';
import { CATALOGUE_MODELS, CatalogueService } from './catalogue/catalogue.service';
import type { Engine } from './engines/engine';
import { createBuiltInEngines } from './engines';
import { ENGINES } from './engine-registry';
import { GenerationController } from './generation.controller';
import { GENERATION_DB, GENERATION_SETTINGS, GenerationSettings } from './generation.tokens';
import { JobRunnerService } from './jobs/job-runner.service';
import { JobsRepository } from './jobs/jobs.repository';
import { JobsService } from './jobs/jobs.service';
import { JobMetrics } from './metrics/job-metrics';
import { QueueStatsRepository } from './metrics/queue-stats.repository';
import { OutboxRelayService } from './outbox/outbox-relay.service';
import { applyModelEngines, ModelEngineBinding } from './remote/model-engines.config';
import { LocalDirectoryStorage, OutputStorage } from './storage/output-storage';

export interface GenerationModuleOptions {
  dataSource: DataSource;
  settings: GenerationSettings;
  storageDir: string;
  /** Defaults to the reviewed catalogue; tests may pass their own. */
  models?: readonly ModelDefinition[];
  /** Extra or replacement engines by name (remote adapters, test engines). */
  engines?: Record<string, Engine>;
  /** Models bound to another engine by configuration (MODEL_ENGINES; docs/engines.md). */
  modelEngines?: readonly ModelEngineBinding[];
}

@Module({})
export class GenerationModule {
  static register(options: GenerationModuleOptions): DynamicModule {
    const { models, engines } = applyModelEngines(
      options.models ?? CATALOGUE,
      new Map<string, Engine>(Object.entries({ ...createBuiltInEngines(), ...(options.engines ?? {}) })),
      options.modelEngines ?? [],
    );
    return {
      module: GenerationModule,
      controllers: [GenerationController],
      providers: [
        { provide: GENERATION_DB, useValue: options.dataSource },
        { provide: GENERATION_SETTINGS, useValue: options.settings },
        { provide: CATALOGUE_MODELS, useValue: models },
        { provide: ENGINES, useValue: engines },
        { provide: OutputStorage, useValue: new LocalDirectoryStorage(options.storageDir) },
        CatalogueService,
        JobsRepository,
        JobsService,
        JobRunnerService,
        OutboxRelayService,
        QueueStatsRepository,
        {
          provide: JobMetrics,
          inject: [{ token: MetricsRegistry, optional: true }, QueueStatsRepository],
          // Without the observability module (tools, unit tests) the metrics go to a private registry.
          useFactory: (registry: MetricsRegistry | undefined, stats: QueueStatsRepository) =>
            new JobMetrics(registry ?? new MetricsRegistry('generation', { defaultMetrics: false }), stats),
        },
      ],
      exports: [JobsService, CatalogueService, JobsRepository],
    };
  }
}
