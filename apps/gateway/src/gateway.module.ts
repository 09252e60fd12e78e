import { DynamicModule, Module, Provider } from '@nestjs/common';
import { MetricsRegistry } from '@gen/observability';
import { PgNotifications } from '@gen/persistence';
import { createOutputStorage, OutputStorage } from '@gen/storage';
import type { DataSource } from 'typeorm';
import { CreditsController } from './accounts/credits.controller';
import { GetCredits } from './plans/get-credits.service';
import { AuditRepository } from './audit-log/audit.repository';
import { AuditService } from './audit-log/audit.service';
import { AccountPlanService } from './plans/account-plan.service';
import { GenerationsController } from './generations/generations.controller';
import { GENERATION_USE_CASES } from './generations/generation-use-cases';
import { BatchesController } from './batches/batches.controller';
import { BATCH_USE_CASES } from './batches/batch-use-cases';
import { GetModel } from './models/get-model.service';
import { ListModels } from './models/list-models.service';
import { ModelCatalogue } from './models/model-catalogue';
import { ModelsController } from './models/models.controller';
import { OpenAiController, OpenAiDocumentController } from './openai/openai.controller';
import { GenerateOpenAiImages } from './openai/generate-openai-images.service';
import { ListOpenAiModels } from './openai/list-openai-models.service';
import { FinishedRecords } from './generations/records/finished-records';
import { JobWaits } from './generations/live/job-waits';
import { SubmitDelivery } from './generations/submit/submit-delivery';
import { CreditsLedgerController } from './usage/credits-ledger.controller';
import { ExportCreditLedger } from './usage/export-credit-ledger.service';
import { GetCreditLedger } from './usage/get-credit-ledger.service';
import { GetUsageSummary } from './usage/get-usage-summary.service';
import { WebhookTestsController } from './webhook-tests/webhook-tests.controller';
import { ListTestWebhooks } from './webhook-tests/list-test-webhooks.service';
import { SendTestWebhook } from './webhook-tests/send-test-webhook.service';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeyCache } from './auth/api-key-cache';
import { API_KEY_CACHE_SETTINGS, DEFAULT_API_KEY_CACHE_SETTINGS } from './settings/api-key-cache.settings';
import { ApiKeysService } from './auth/api-keys.service';
import { AuthRepository } from './auth/auth.repository';
import { AuthRpcController } from './keys/auth-rpc.controller';
import { KeyWebhooksService } from './auth/key-webhooks.service';
import { WebhookSecretCipher, WebhookSecretKeyRing } from './auth/webhook-secret-cipher';
import { dashboardParts } from './dashboard.parts';
import type { DashboardSettings } from './settings/dashboard.settings';
import { UsersRepository } from './sessions/users.repository';
import { UserAccountsRepository } from './memberships/user-accounts.repository';
import { MembersRepository } from './memberships/members.repository';
import { MembersService } from './memberships/members.service';
import { AUTH_DB, GATEWAY_SETTINGS, GatewaySettings } from './settings/gateway.tokens';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { IdempotencyService } from './idempotency/idempotency.service';
import { GatewayJanitorService } from './maintenance/gateway-janitor.service';
import { OutputsController } from './outputs/outputs.controller';
import { ProvisioningService } from './provisioning/provisioning.service';
import { ProviderCallbackMetrics } from './provider-callbacks/provider-callback-metrics';
import { ProviderCallbacksController } from './provider-callbacks/provider-callbacks.controller';
import { ProviderCallbacksRelay } from './provider-callbacks/provider-callbacks.relay';
import { RATE_LIMIT_PROVIDERS } from './rate-limit/rate-limit.providers';
import { GenerationStreams } from './generations/live/generation-streams.service';
import { LowBalanceAlertsService } from './low-balance/low-balance-alerts.service';
import { LowBalanceRepository } from './low-balance/low-balance.repository';
import { UploadsController } from './uploads/uploads.controller';
import { UploadsRepository } from './uploads/uploads.repository';
import { UploadFilesRepository } from './uploads/upload-files.repository';
import { UploadsService } from './uploads/uploads.service';

@Module({})
export class GatewayModule {
  static register(options: {
    dataSource: DataSource;
    settings: GatewaySettings;
    /** Serve the dashboard and its API (the HTTP apps; not the operator CLI). */
    dashboard?: DashboardSettings;
    /** Keys that encrypt webhook signing secrets at rest; without them, secrets cannot be read or set. */
    secretKeys?: WebhookSecretKeyRing;
  }): DynamicModule {
    const dashboard = options.dashboard ? dashboardParts(options.dashboard) : { controllers: [], providers: [] };
    return {
      module: GatewayModule,
      controllers: [
        GenerationsController,
        BatchesController,
        ModelsController,
        CreditsController,
        CreditsLedgerController,
        WebhookTestsController,
        OutputsController,
        UploadsController,
        AuthRpcController,
        ProviderCallbacksController,
        OpenAiDocumentController,
        OpenAiController,
        ...dashboard.controllers,
      ],
      providers: [
        { provide: WebhookSecretCipher, useValue: new WebhookSecretCipher(options.secretKeys ?? null) },
        UsersRepository,
        UserAccountsRepository,
        LowBalanceRepository,
        LowBalanceAlertsService,
        ...dashboard.providers,
        { provide: AUTH_DB, useValue: options.dataSource },
        // Changes the database announces (keys, the catalogue): seen by this gateway's caches at once.
        { provide: PgNotifications, inject: [AUTH_DB], useFactory: (dataSource: DataSource) => PgNotifications.forDataSource(dataSource) },
        ModelCatalogue,
        JobWaits,
        FinishedRecords,
        SubmitDelivery,
        { provide: GATEWAY_SETTINGS, useValue: options.settings },
        ...outputStorageProviders(options.settings),
        AuthRepository,
        { provide: API_KEY_CACHE_SETTINGS, useValue: options.settings.apiKeyCache ?? DEFAULT_API_KEY_CACHE_SETTINGS },
        ApiKeyCache,
        ApiKeysService,
        KeyWebhooksService,
        ApiKeyGuard,
        AccountPlanService,
        ...GENERATION_USE_CASES,
        ...BATCH_USE_CASES,
        ListModels,
        GetModel,
        GenerateOpenAiImages,
        ListOpenAiModels,
        GetCredits,
        GenerationStreams,
        GetCreditLedger,
        GetUsageSummary,
        ExportCreditLedger,
        SendTestWebhook,
        ListTestWebhooks,
        ProvisioningService,
        ...RATE_LIMIT_PROVIDERS,
        IdempotencyRepository,
        IdempotencyService,
        GatewayJanitorService,
        ProviderCallbacksRelay,
        {
          provide: ProviderCallbackMetrics,
          inject: [{ token: MetricsRegistry, optional: true }],
          // Without the observability module (tools, unit tests) the counters go to a private registry.
          useFactory: (registry: MetricsRegistry | undefined) => new ProviderCallbackMetrics(registry ?? new MetricsRegistry('gateway', { defaultMetrics: false })),
        },
        AuditRepository,
        AuditService,
        UploadsRepository,
        UploadFilesRepository,
        UploadsService,
        MembersRepository,
        MembersService,
      ],
      exports: [ProvisioningService, ApiKeysService, KeyWebhooksService, AuditService, MembersRepository, MembersService, LowBalanceAlertsService, UploadsService],
    };
  }
}

/** The storage outputs are served from and uploads kept in (none for the operator CLI, which serves nothing). */
function outputStorageProviders(settings: GatewaySettings): Provider[] {
  const storage = settings.storage ?? (settings.outputsDir ? { driver: 'local' as const, dir: settings.outputsDir } : null);
  return storage ? [{ provide: OutputStorage, useValue: createOutputStorage(storage) }] : [];
}
