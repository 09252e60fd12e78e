import { DynamicModule, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { GENERATION_DB, GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { JobFinishRepository } from '../jobs/job-finish.repository';
import { OutboxRepository } from '../outbox/outbox.repository';
import { JobAdminRepository } from './job-admin.repository';
import { JobAdminService } from './job-admin.service';

/** The operator's job commands alone (the CLI's `jobs list|inspect|fail`), without the runner and engines. */
@Module({})
export class JobAdminModule {
  /** `settings.cdnBaseUrl`: as the generation service has it (its failed events carry it). */
  static register(dataSource: DataSource, settings: Pick<GenerationSettings, 'cdnBaseUrl'>): DynamicModule {
    return {
      module: JobAdminModule,
      providers: [
        { provide: GENERATION_DB, useValue: dataSource },
        { provide: GENERATION_SETTINGS, useValue: settings },
        OutboxRepository,
        JobFinishRepository,
        JobAdminRepository,
        JobAdminService,
      ],
      exports: [JobAdminService],
    };
  }
}
