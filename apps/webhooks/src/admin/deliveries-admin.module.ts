import { DynamicModule, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DeliveryAttemptsRepository } from '../deliveries/delivery-attempts.repository';
import { WEBHOOKS_DB } from '../config/webhooks.tokens';
import { DeliveriesAdminRepository } from './deliveries-admin.repository';
import { DeliveriesAdminService } from './deliveries-admin.service';

/** The operator's delivery commands alone (the CLI's `deliveries retry`), without the dispatcher. */
@Module({})
export class DeliveriesAdminModule {
  static register(dataSource: DataSource): DynamicModule {
    return {
      module: DeliveriesAdminModule,
      providers: [{ provide: WEBHOOKS_DB, useValue: dataSource }, DeliveryAttemptsRepository, DeliveriesAdminRepository, DeliveriesAdminService],
      exports: [DeliveriesAdminService],
    };
  }
}
