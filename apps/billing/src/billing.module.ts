import { DynamicModule, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { BILLING_DB } from './billing.tokens';
import { BillingController } from './holds/billing.controller';
import { BillingRepository } from './holds/billing.repository';
import { BillingService } from './holds/billing.service';

@Module({})
export class BillingModule {
  /** `dataSource` is the service's own, already migrated (see billingDatabase()). */
  static register(dataSource: DataSource): DynamicModule {
    return {
      module: BillingModule,
      controllers: [BillingController],
      providers: [{ provide: BILLING_DB, useValue: dataSource }, BillingRepository, BillingService],
      exports: [BillingService],
    };
  }
}
