import { MigrationsMode, openServiceDataSource, OutboxEventEntity, ServiceDatabaseOptions } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { JobEntity } from './jobs/job.entity';
import { ModelEntity } from './catalogue/model.entity';
import { GenerationInit1763700000000 } from './migrations/1763700000000-generation-init';
import { GenerationModels1764300000000 } from './migrations/1764300000000-generation-models';
import { GenerationJobControl1764400000000 } from './migrations/1764400000000-generation-job-control';
import { GenerationAdmissionClaim1764730000000 } from './migrations/1764730000000-generation-admission-claim';
import { GenerationAdmissionBatch1764740000000 } from './migrations/1764740000000-generation-admission-batch';
import { GenerationParkedJobs1764810000000 } from './migrations/1764810000000-generation-parked-jobs';
import { GenerationInputsOutputs1764830000000 } from './migrations/1764830000000-generation-inputs-outputs';
import { GenerationModelInputs1764830000001 } from './migrations/1764830000001-generation-model-inputs';
import { GenerationModelInputsOrder1764830000002 } from './migrations/1764830000002-generation-model-inputs-order';
import { GenerationCatalogueNotify1764840000001 } from './migrations/1764840000001-generation-catalogue-notify';
import { GenerationModelLabels1764880000000 } from './migrations/1764880000000-generation-model-labels';
import { GenerationUpstreamQueuePosition1764910000000 } from './migrations/1764910000000-generation-upstream-queue-position';
import { GenerationFunctionsFromFiles1765200000000 } from './migrations/1765200000000-generation-functions-from-files';
import { GenerationClaimSkip1765600000000 } from './migrations/1765600000000-generation-claim-skip';
import { GenerationModelOpenai1766100000000 } from './migrations/1766100000000-generation-model-openai';
import { GenerationBatches1766300000000 } from './migrations/1766300000000-generation-batches';
import { GenerationOutboxPublished1766400000000 } from './migrations/1766400000000-generation-outbox-published';

export const GENERATION_SCHEMA = 'generation';

export function generationDatabaseOptions(url: string, poolSize?: number): ServiceDatabaseOptions {
  return {
    url,
    schema: GENERATION_SCHEMA,
    entities: [JobEntity, OutboxEventEntity, ModelEntity],
    migrations: [
      GenerationInit1763700000000,
      GenerationModels1764300000000,
      GenerationJobControl1764400000000,
      GenerationAdmissionClaim1764730000000,
      GenerationAdmissionBatch1764740000000,
      GenerationParkedJobs1764810000000,
      GenerationInputsOutputs1764830000000,
      GenerationModelInputs1764830000001,
      GenerationModelInputsOrder1764830000002,
      GenerationCatalogueNotify1764840000001,
      GenerationModelLabels1764880000000,
      GenerationUpstreamQueuePosition1764910000000,
      GenerationFunctionsFromFiles1765200000000,
      GenerationClaimSkip1765600000000,
      GenerationModelOpenai1766100000000,
      GenerationBatches1766300000000,
      GenerationOutboxPublished1766400000000,
    ],
    poolSize,
  };
}

export function openGenerationDatabase(url: string, poolSize?: number, migrations: MigrationsMode = 'run'): Promise<DataSource> {
  return openServiceDataSource(generationDatabaseOptions(url, poolSize), migrations);
}
