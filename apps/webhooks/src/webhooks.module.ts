import { DynamicModule, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { WEBHOOKS_DB } from './webhooks.tokens';

export interface WebhooksSettings {
  /** Allow plain http destinations (development, tests, standalone). */
  allowHttp: boolean;
  /** Allow private and loopback destinations (development, tests). */
  allowPrivateNetworks: boolean;
  /** CIDRs or host names always allowed (on-premise receivers). */
  allowList: string[];
}

@Module({})
export class WebhooksModule {
  static register(options: { dataSource: DataSource; settings: WebhooksSettings }): DynamicModule {
    return {
      module: WebhooksModule,
      providers: [
        { provide: WEBHOOKS_DB, useValue: options.dataSource },
        { provide: 'WEBHOOKS_SETTINGS', useValue: options.settings },
      ],
    };
  }
}
