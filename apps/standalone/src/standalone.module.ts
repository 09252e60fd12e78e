import { DynamicModule, Module } from '@nestjs/common';
import { BillingModule } from '@gen/billing';
import { DashboardSettings, GatewayModule, GatewaySettings, WebhookSecretKeyRing } from '@gen/gateway';
import { Engine, GenerationModule, GenerationSettings, ModelDefinitionInput } from '@gen/generation';
import { InProcessBus, TransportModule } from '@gen/transport';
import { WebhooksModule, WebhooksSettings } from '@gen/webhooks';
import type { DataSource } from 'typeorm';

export interface StandaloneParts {
  bus: InProcessBus;
  /** Logs, metrics and health for the process (ObservabilityModule.forRoot). */
  observability: DynamicModule;
  databases: { auth: DataSource; billing: DataSource; generation: DataSource; webhooks: DataSource };
  gateway: GatewaySettings;
  dashboard: DashboardSettings;
  webhookSecretKeys: WebhookSecretKeyRing;
  generation: GenerationSettings;
  webhooks: WebhooksSettings;
  storageDir: string;
  models?: readonly ModelDefinitionInput[];
  engines?: Record<string, Engine>;
  espeakPath?: string;
  credentialEnv?: Readonly<Record<string, string | undefined>>;
}

/** The four services in one process over the in-process bus: the same modules as distributed mode. */
@Module({})
export class StandaloneModule {
  static forRoot(parts: StandaloneParts): DynamicModule {
    return {
      module: StandaloneModule,
      imports: [
        parts.observability,
        TransportModule.forRoot({ kind: 'in-process', bus: parts.bus }),
        GatewayModule.register({
          dataSource: parts.databases.auth,
          settings: parts.gateway,
          dashboard: parts.dashboard,
          secretKeys: parts.webhookSecretKeys,
        }),
        BillingModule.register(parts.databases.billing),
        GenerationModule.register({
          dataSource: parts.databases.generation,
          settings: parts.generation,
          storageDir: parts.storageDir,
          models: parts.models,
          engines: parts.engines,
          espeakPath: parts.espeakPath,
          env: parts.credentialEnv,
        }),
        WebhooksModule.register({ dataSource: parts.databases.webhooks, settings: parts.webhooks }),
      ],
    };
  }
}
