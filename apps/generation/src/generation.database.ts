import { MigrationsMode, openServiceDataSource, ServiceDatabaseOptions } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { JobEntity } from './jobs/job.entity';
import { GenerationInit1763700000000 } from './migrations/1763700000000-generation-init';
import { OutboxEventEntity } from './outbox/outbox-event.entity';

export const GENERATION_SCHEMA = 'generation';

export function generationDatabaseOptions(url: string, poolSize?: number): ServiceDatabaseOptions {
  return {
    url,
    schema: GENERATION_SCHEMA,
    entities: [JobEntity, OutboxEventEntity],
    migrations: [GenerationInit1763700000000],
    poolSize,
  };
}

export function openGenerationDatabase(url: string, poolSize?: number, migrations: MigrationsMode = 'run'): Promise<DataSource> {
  return openServiceDataSource(generationDatabaseOptions(url, poolSize), migrations);
}
