import { DynamicModule, Module } from '@nestjs/common';
import { MetricsRegistry } from '@gen/observability';
import { PgNotifications } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import type { ModelDefinitionInput } from './catalogue/catalogue';
import { CatalogueMetrics } from './catalogue/catalogue-metrics';
import { CATALOGUE_SEED, CatalogueService } from './catalogue/catalogue.service';
import { ENGINE_KINDS, ModelEngines, PROVIDER_CONTEXT } from './catalogue/model-engines';
import { ModelsRepository } from './catalogue/models.repository';
import { engineKinds } from './engine-kinds';
import type { Engine } from './ports/engine';
import { CallbackJobsRepository } from './callbacks/callback-jobs.repository';
import { ProviderCallbacksController } from './callbacks/provider-callbacks.controller';
import { CallbackReceiver } from './callbacks/callback-receiver.service';
import { PROVIDER_CALLBACK_SETTINGS, ProviderCallbacks } from './callbacks/provider-callbacks.service';
import { GenerationController } from './generation.controller';
import { BatchEnding } from './batches/batch-ending.service';
import { BatchFeedRepository } from './batches/batch-feed.repository';
import { BatchFeeder } from './batches/batch-feeder.service';
import { EventLoopLoad } from './batches/event-loop-load';
import { BatchHolds } from './batches/batch-holds.service';
import { BatchesController } from './batches/batches.controller';
import { BatchesService } from './batches/batches.service';
import { BatchStoreRepository } from './batches/batch-store.repository';
import { GENERATION_DB, GENERATION_SETTINGS, GenerationSettings } from './config/generation.tokens';
import { JobFinisher } from './jobs/job-finisher.service';
import { JobFinishWriter } from './jobs/job-finish.writer';
import { DEFAULT_JOB_FINISHER_SETTINGS, JOB_FINISHER_SETTINGS } from './config/job-finisher.settings';
import { DEFAULT_JOB_ADMISSION_SETTINGS, JOB_ADMISSION_SETTINGS } from './config/job-admission.settings';
import { JobJanitorService } from './jobs/runtime/job-janitor.service';
import { JobAdmissionRepository } from './jobs/job-admission.repository';
import { JobAdmissionWriter } from './jobs/job-admission.writer';
import { JobClaimsRepository } from './jobs/job-claims.repository';
import { JobFinishRepository } from './jobs/job-finish.repository';
import { JobJanitorRepository } from './jobs/job-janitor.repository';
import { JobReadsRepository } from './jobs/job-reads.repository';
import { JobsService } from './jobs/runtime/jobs.service';
import { BindingLimits } from './jobs/binding-limits.service';
import { bindingCaps } from './jobs/binding-models';
import { ParkedJobs } from './jobs/runtime/parked-jobs.service';
import { ParkedJobsRepository } from './jobs/parked-jobs.repository';
import { ParkedJobsWriter } from './jobs/parked-jobs.writer';
import { LeaseReclaimer } from './jobs/runtime/lease-reclaimer.service';
import { EngineCalls } from './jobs/runtime/engine-calls.service';
import { JobClaimer } from './jobs/runtime/job-claimer.service';
import { JobOutputs } from './jobs/runtime/job-outputs.service';
import { JobProgress } from './jobs/runtime/job-progress.service';
import { JobRunner } from './jobs/runtime/job-runner.service';
import { JobRuntime } from './jobs/runtime/job-runtime.service';
import { LeaseKeeper } from './jobs/runtime/lease-keeper.service';
import { ProviderPhases } from './jobs/runtime/provider-phases.service';
import { QueuedWorkHint } from './jobs/runtime/queued-work-hint';
import { RunningJobs } from './jobs/runtime/running-jobs';
import { SyncWaits } from './jobs/sync-waits';
import { UpstreamRefsRepository } from './jobs/upstream-refs.repository';
import { UpstreamRefsWriter } from './jobs/upstream-refs.writer';
import { SubmittedJobsReader } from './jobs/submitted-jobs.reader';
import { UpstreamMetrics } from './metrics/upstream-metrics';
import { JobMetrics } from './metrics/job-metrics';
import { QueueStatsRepository } from './metrics/queue-stats.repository';
import { OutboxRelayService } from './outbox/outbox-relay.service';
import { OutboxRepository } from './outbox/outbox.repository';
import { DEFAULT_OUTBOX_SETTINGS, OUTBOX_SETTINGS } from './config/outbox.settings';
import { CallbackUrls } from './ports/callback-urls';
import type { ProviderContext } from './ports/engine-kind';
import { createOutputStorage, OutputStorage, StorageSettings } from '@gen/storage';

export interface GenerationModuleOptions {
  dataSource: DataSource;
  settings: GenerationSettings;
  storageDir: string;
  /** Where outputs go (STORAGE_DRIVER...); unset: the local folder `storageDir`. */
  storage?: StorageSettings;
  /** Models written into the catalogue at start, over what the table holds (tests, embedders). */
  models?: readonly ModelDefinitionInput[];
  /** Extra engines by kind name, taking any settings (test engines). */
  engines?: Record<string, Engine>;
  /** Where credentials named by bindings (`tokenEnv`) are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** espeak-ng's program (ESPEAK_NG_PATH; default `espeak-ng` on the PATH). */
  espeakPath?: string;
}


@Module({})
export class GenerationModule {
  static register(options: GenerationModuleOptions): DynamicModule {
    const env = options.env ?? process.env;
    const storage = createOutputStorage(options.storage ?? { driver: 'local', dir: options.storageDir });
    const context: ProviderContext = {
      env: (name) => env[name],
      allowPrivateNetworks: options.settings.upstreamAllowPrivateNetworks ?? false,
      storage,
    };
    return {
      module: GenerationModule,
      controllers: [GenerationController, ProviderCallbacksController, BatchesController],
      providers: [
        { provide: GENERATION_DB, useValue: options.dataSource },
        // Catalogue changes the database announces at their commit (CatalogueService reads it again).
        { provide: PgNotifications, inject: [GENERATION_DB], useFactory: (dataSource: DataSource) => PgNotifications.forDataSource(dataSource) },
        { provide: GENERATION_SETTINGS, useValue: options.settings },
        { provide: CATALOGUE_SEED, useValue: options.models ?? null },
        { provide: ENGINE_KINDS, useValue: engineKinds(options) },
        { provide: PROVIDER_CONTEXT, useValue: context },
        { provide: OutputStorage, useValue: storage },
        {
          provide: OUTBOX_SETTINGS,
          useValue: { ...DEFAULT_OUTBOX_SETTINGS, leaseMs: options.settings.outboxLeaseMs ?? DEFAULT_OUTBOX_SETTINGS.leaseMs, batch: options.settings.outboxBatch ?? DEFAULT_OUTBOX_SETTINGS.batch, retentionMs: options.settings.outboxRetentionHours !== undefined ? options.settings.outboxRetentionHours * 3_600_000 : DEFAULT_OUTBOX_SETTINGS.retentionMs },
        },
        { provide: JOB_ADMISSION_SETTINGS, useValue: { maxBatch: options.settings.jobAdmitBatch ?? DEFAULT_JOB_ADMISSION_SETTINGS.maxBatch } },
        { provide: JOB_FINISHER_SETTINGS, useValue: { ...DEFAULT_JOB_FINISHER_SETTINGS, maxBatch: options.settings.jobFinishBatch ?? DEFAULT_JOB_FINISHER_SETTINGS.maxBatch } },
        ModelsRepository,
        ModelEngines,
        CatalogueService,
        JobAdmissionRepository,
        JobAdmissionWriter,
        JobClaimsRepository,
        JobFinishRepository,
        JobJanitorRepository,
        JobReadsRepository,
        JobsService,
        { provide: PROVIDER_CALLBACK_SETTINGS, useValue: options.settings.providerCallbacks ?? { baseUrl: '', key: null, keyFile: null } },
        CallbackJobsRepository,
        ProviderCallbacks,
        // The job runtime's port, served by the callbacks folder (CONTRIBUTING.md, "Layers inside generation").
        { provide: CallbackUrls, useExisting: ProviderCallbacks },
        CallbackReceiver,
        // The job runtime (docs/design/architecture.md): claimer -> runner, with its leases, progress and finisher.
        RunningJobs,
        QueuedWorkHint,
        JobClaimer,
        JobRunner,
        EngineCalls,
        ProviderPhases,
        JobOutputs,
        JobProgress,
        LeaseKeeper,
        JobRuntime,
        JobFinishWriter,
        JobFinisher,
        SyncWaits,
        LeaseReclaimer,
        OutboxRepository,
        JobJanitorService,
        ParkedJobsRepository,
        ParkedJobsWriter,
        UpstreamRefsRepository,
        UpstreamRefsWriter,
        SubmittedJobsReader,
        BindingLimits,
        ParkedJobs,
        OutboxRelayService,
        QueueStatsRepository,
        // Batches (docs/design/batches.md): the handlers' store and the feeder that admits their lines.
        BatchStoreRepository,
        BatchFeedRepository,
        BatchHolds,
        BatchEnding,
        BatchFeeder,
        {
          provide: EventLoopLoad,
          inject: [{ token: MetricsRegistry, optional: true }],
          useFactory: (registry: MetricsRegistry | undefined) => new EventLoopLoad(registry ?? new MetricsRegistry('generation', { defaultMetrics: false })),
        },
        BatchesService,
        {
          provide: CatalogueMetrics,
          inject: [{ token: MetricsRegistry, optional: true }, CatalogueService],
          useFactory: (registry: MetricsRegistry | undefined, catalogue: CatalogueService) =>
            new CatalogueMetrics(registry ?? new MetricsRegistry('generation', { defaultMetrics: false }), catalogue),
        },
        {
          provide: JobMetrics,
          inject: [{ token: MetricsRegistry, optional: true }, QueueStatsRepository],
          // Without the observability module (tools, unit tests) the metrics go to a private registry.
          useFactory: (registry: MetricsRegistry | undefined, stats: QueueStatsRepository) =>
            new JobMetrics(registry ?? new MetricsRegistry('generation', { defaultMetrics: false }), stats),
        },
        {
          provide: UpstreamMetrics,
          inject: [{ token: MetricsRegistry, optional: true }, ParkedJobsRepository, CatalogueService],
          useFactory: (registry: MetricsRegistry | undefined, repository: ParkedJobsRepository, catalogue: CatalogueService) => {
            const metrics = new UpstreamMetrics(registry ?? new MetricsRegistry('generation', { defaultMetrics: false }));
            metrics.readFrom(repository, () => bindingCaps(catalogue));
            return metrics;
          },
        },
      ],
      exports: [JobsService, CatalogueService, JobJanitorService, ParkedJobs, BatchFeeder],
    };
  }
}
