import { DynamicModule, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { engineKinds } from './engine-kinds';
import type { Engine } from './ports/engine';
import { GENERATION_DB } from './config/generation.tokens';
import { CatalogueAdminService } from './catalogue/catalogue-admin.service';
import { ENGINE_KINDS } from './catalogue/model-engines';
import { ModelsRepository } from './catalogue/models.repository';

/** The catalogue's operator commands alone (the CLI), without the job runner and engines. */
@Module({})
export class CatalogueAdminModule {
  /** `engines`: extra engine kinds a model may be bound to (those the service was started with, in tests). */
  static register(dataSource: DataSource, options: { engines?: Record<string, Engine> } = {}): DynamicModule {
    return {
      module: CatalogueAdminModule,
      providers: [
        { provide: GENERATION_DB, useValue: dataSource },
        { provide: ENGINE_KINDS, useValue: engineKinds(options) },
        ModelsRepository,
        CatalogueAdminService,
      ],
      exports: [CatalogueAdminService],
    };
  }
}
