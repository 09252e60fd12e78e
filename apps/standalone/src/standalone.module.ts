import { DynamicModule, Module } from '@nestjs/common';
import { BillingModule } from '@gen/billing';
import { GatewayModule } from '@gen/gateway';
import { Engine, GenerationModule, ModelDefinitionInput } from '@gen/generation';
import { InProcessBus, TransportModule } from '@gen/transport';
import { WebhooksModule } from '@gen/webhooks';
import type { DataSource } from 'typeorm';
import type { StandaloneConfig } from './standalone.config';

export interface StandaloneParts {
  bus: InProcessBus;
  /** Logs, metrics and health for the process (ObservabilityModule.forRoot). */
  observability: DynamicModule;
  databases: { auth: DataSource; billing: DataSource; generation: DataSource; webhooks: DataSource };
  /** Each service's settings, read by loadStandaloneConfig(). */
  config: Pick<StandaloneConfig, 'outputsDir' | 'gateway' | 'billing' | 'generation' | 'webhooks' | 'credentialEnv'>;
  models?: readonly ModelDefinitionInput[];
  engines?: Record<string, Engine>;
}

/** The four services in one process over the in-process bus: the same modules as distributed mode. */
@Module({})
export class StandaloneModule {
  static forRoot(parts: StandaloneParts): DynamicModule {
    const { config } = parts;
    return {
      module: StandaloneModule,
      imports: [
        parts.observability,
        TransportModule.forRoot({ kind: 'in-process', bus: parts.bus }),
        GatewayModule.register({ dataSource: parts.databases.auth, ...config.gateway }),
        BillingModule.register(parts.databases.billing, config.billing),
        GenerationModule.register({
          dataSource: parts.databases.generation,
          settings: config.generation,
          storageDir: config.outputsDir,
          storage: config.gateway.settings.storage,
          models: parts.models,
          engines: parts.engines,
          espeakPath: config.generation.espeakPath,
          env: config.credentialEnv,
        }),
        WebhooksModule.register({ dataSource: parts.databases.webhooks, settings: config.webhooks }),
      ],
    };
  }
}
