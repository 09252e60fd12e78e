import { DynamicModule, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { AccountController } from './api/account.controller';
import { AccountPlanService } from './api/account-plan.service';
import { GenerationsController } from './api/generations.controller';
import { GenerationsService } from './api/generations.service';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeysService } from './auth/api-keys.service';
import { AuthRepository } from './auth/auth.repository';
import { AuthRpcController } from './auth/auth-rpc.controller';
import { AUTH_DB, GATEWAY_SETTINGS, GatewaySettings } from './gateway.tokens';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { IdempotencyService } from './idempotency/idempotency.service';
import { GatewayJanitorService } from './maintenance/gateway-janitor.service';
import { OutputsController } from './outputs/outputs.controller';
import { ProvisioningService } from './provisioning/provisioning.service';
import { RATE_LIMIT_PROVIDERS } from './rate-limit/rate-limit.providers';

@Module({})
export class GatewayModule {
  static register(options: { dataSource: DataSource; settings: GatewaySettings }): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [GenerationsController, AccountController, OutputsController, AuthRpcController],
      providers: [
        { provide: AUTH_DB, useValue: options.dataSource },
        { provide: GATEWAY_SETTINGS, useValue: options.settings },
        AuthRepository,
        ApiKeysService,
        ApiKeyGuard,
        AccountPlanService,
        GenerationsService,
        ProvisioningService,
        ...RATE_LIMIT_PROVIDERS,
        IdempotencyRepository,
        IdempotencyService,
        GatewayJanitorService,
      ],
      exports: [ProvisioningService, ApiKeysService],
    };
  }
}
