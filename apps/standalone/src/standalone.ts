import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { join } from 'node:path';
import { billingRelease, openBillingDatabase } from '@gen/billing';
import { HealthSubjects } from '@gen/contracts';
import { configureHttpApp, createFastifyAdapter, gatewayRelease, openAuthDatabase, ProvisioningService } from '@gen/gateway';
import { Engine, generationRelease, ModelDefinitionInput, openGenerationDatabase } from '@gen/generation';
import {
  configureObservedHttp,
  drainAndClose,
  ObservabilityModule,
  postgresCheck,
  servicePingCheck,
} from '@gen/observability';
import { ensureDatabase, EmbeddedPostgresHandle, startEmbeddedPostgres } from '@gen/persistence';
import { InProcessBus, InProcessServer, RpcClient } from '@gen/transport';
import { openWebhooksDatabase, webhooksRelease } from '@gen/webhooks';
import type { DestinationStream } from 'pino';
import type { DataSource } from 'typeorm';
import { StandaloneConfig } from './standalone.config';
import { StandaloneModule } from './standalone.module';

export const STANDALONE_DATABASE = 'generation_service';

export interface RunningStandalone {
  app: NestFastifyApplication;
  /** Where the HTTP server listens (actual port, also when PORT=0). */
  url: string;
  provisioning: ProvisioningService;
  databases: { auth: DataSource; billing: DataSource; generation: DataSource; webhooks: DataSource };
  embeddedPostgres: EmbeddedPostgresHandle | null;
  stop(): Promise<void>;
}

export interface StandaloneOverrides {
  models?: readonly ModelDefinitionInput[];
  engines?: Record<string, Engine>;
  /**
   * `false` silences every log line (same as LOG_LEVEL=silent); a LoggerService receives Nest's
   * application logs instead of pino (tests that read them). Request lines stay with pino.
   */
  logger?: LoggerService | false;
  /** Where log lines go instead of stdout (tests read them). */
  logDestination?: DestinationStream;
}

/** Starts the whole service in one process: embedded (or given) Postgres, four modules, one HTTP server. */
export async function startStandalone(config: StandaloneConfig, overrides: StandaloneOverrides = {}): Promise<RunningStandalone> {
  let embedded: EmbeddedPostgresHandle | null = null;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: join(config.dataDir, 'pg'), port: config.embeddedPgPort });
    await ensureDatabase(embedded.adminUrl, STANDALONE_DATABASE);
    databaseUrl = embedded.urlFor(STANDALONE_DATABASE);
  }
  const opened: DataSource[] = [];
  try {
    const [auth, billing, generation, webhooks] = await Promise.all([
      openAuthDatabase(databaseUrl, 10),
      openBillingDatabase(databaseUrl, 20),
      openGenerationDatabase(databaseUrl, 20),
      openWebhooksDatabase(databaseUrl, 10),
    ]);
    opened.push(auth, billing, generation, webhooks);
    // One process: its messages are checked where they enter it (HTTP), not again on each call.
    const bus = new InProcessBus({ checkPayloads: false });
    const observability = ObservabilityModule.forRoot({
      service: 'standalone',
      logging: { level: overrides.logger === false ? 'silent' : config.ops.logLevel, destination: overrides.logDestination },
      answersPingFor: ['gateway', 'billing', 'generation', 'webhooks'],
      // One process, four services: /healthz and gen_build_info name each one's version.
      builds: [gatewayRelease(), billingRelease(), generationRelease(), webhooksRelease()],
      readiness: {
        inject: [RpcClient],
        useFactory: (rpc: RpcClient) => [
          postgresCheck('postgres:auth', auth),
          postgresCheck('postgres:billing', billing),
          postgresCheck('postgres:generation', generation),
          postgresCheck('postgres:webhooks', webhooks),
          ...(['billing', 'generation', 'webhooks'] as const).map((service) =>
            servicePingCheck(service, () => rpc.request(HealthSubjects[service], {})),
          ),
        ],
      },
    });
    const module = StandaloneModule.forRoot({
      observability,
      bus,
      databases: { auth, billing, generation, webhooks },
      config,
      models: overrides.models,
      engines: overrides.engines,
    });
    const app = await NestFactory.create<NestFastifyApplication>(module, createFastifyAdapter(config.http.limits, config.http.trustProxy), {
      bufferLogs: true,
      abortOnError: false,
    });
    configureObservedHttp(app);
    if (overrides.logger) app.useLogger(overrides.logger);
    configureHttpApp(app, config.http.limits);
    // RpcErrorFilter is bound on each message controller (a hybrid app's microservice is already initialised here).
    app.connectMicroservice({ strategy: new InProcessServer(bus) }, { inheritAppConfig: false });
    await app.startAllMicroservices();
    await app.listen(config.ops.http.port, config.ops.http.host);
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : config.ops.http.port;
    return {
      app,
      url: `http://${config.ops.http.host === '0.0.0.0' ? '127.0.0.1' : config.ops.http.host}:${port}`,
      provisioning: app.get(ProvisioningService),
      databases: { auth, billing, generation, webhooks },
      embeddedPostgres: embedded,
      stop: async () => {
        await drainAndClose(app, config.ops.shutdown);
        await Promise.allSettled(opened.map((ds) => ds.destroy()));
        if (embedded) await embedded.stop();
      },
    };
  } catch (error) {
    await Promise.allSettled(opened.map((ds) => ds.destroy()));
    if (embedded) await embedded.stop();
    throw error;
  }
}
