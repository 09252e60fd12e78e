import { DynamicModule, Module, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ServiceName } from '@gen/contracts';
import { EnvReader, OpsConfig, readServiceConfig, runMain } from '@gen/config';
import { NatsJetStreamServer, NatsRpcClient, TransportModule } from '@gen/transport';
import type { DataSource } from 'typeorm';
import type { BuildInfo } from './build/build-info';
import { flagCheck, natsCheck, postgresCheck, ReadinessCheck } from './health/readiness-check';
import { createServiceHttpApp } from './http/service-http-app';
import { ObservabilityModule } from './observability.module';
import { drainAndClose } from './lifecycle/graceful-shutdown';

/** What differs between the services of a distributed deployment; the rest is shared. */
export interface NatsServiceDefinition<Settings> {
  service: ServiceName;
  /** Its release (version and contract), in /healthz and gen_build_info. */
  release: BuildInfo;
  /** The service's own settings (its settings file's declarations); bad values are collected by `env`, so start-up names them all. */
  readSettings(env: EnvReader, ops: OpsConfig): Settings;
  openDatabase(url: string, poolSize: number, migrations: 'run' | 'verify'): Promise<DataSource>;
  module(dataSource: DataSource, settings: Settings): DynamicModule;
  /** Readiness checks beyond its database and NATS (the gateway: each service behind it answers its ping). */
  readiness?(rpc: NatsRpcClient): ReadinessCheck[];
  /** The HTTP app (the gateway: its public API); default: the health and metrics port alone (createServiceHttpApp). */
  createApp?(module: Type<unknown>, settings: Settings): Promise<NestFastifyApplication>;
  /**
   * Stop taking NATS work right after readiness turns 503, before the shutdown delay (default
   * true). The gateway keeps answering other services' questions about keys until it closes.
   */
  stopAcceptingFirst?: boolean;
}

/**
 * Distributed mode's entry point for a service: validated config, its own
 * migrated schema, NATS (request/reply + JetStream), health and metrics on HTTP_PORT, and the
 * graceful drain on SIGTERM (stop taking work, finish or hand back, close, exit 0).
 */
export function runNatsService<Settings>(definition: NatsServiceDefinition<Settings>): void {
  runMain(definition.service, async () => {
    const env = new EnvReader(process.env, definition.service);
    const { ops, database, nats } = readServiceConfig(env);
    const settings = definition.readSettings(env, ops);
    env.done();
    const dataSource = await definition.openDatabase(database.url, database.poolSize, database.migrations);
    const server = new NatsJetStreamServer(nats, Math.min(10_000, ops.shutdown.timeoutMs / 2));

    @Module({
      imports: [
        ObservabilityModule.forRoot({
          service: definition.service,
          logging: { level: ops.logLevel },
          answersPingFor: [definition.service],
          builds: [definition.release],
          readiness: {
            inject: [NatsRpcClient],
            useFactory: (rpc: NatsRpcClient) => [
              postgresCheck('postgres', dataSource),
              natsCheck('nats', () => rpc.connection()),
              flagCheck('nats:subscriptions', () => server.isConnected(), 'the NATS server side is not connected'),
              ...(definition.readiness?.(rpc) ?? []),
            ],
          },
        }),
        TransportModule.forRoot({ kind: 'nats', nats, refusals: server.refusals }),
        definition.module(dataSource, settings),
      ],
    })
    class ServiceAppModule {}

    const app = await (definition.createApp ? definition.createApp(ServiceAppModule, settings) : createServiceHttpApp(ServiceAppModule));
    app.connectMicroservice({ strategy: server }, { inheritAppConfig: false });
    // Every module's init hooks (the catalogue's first read, for one) run before NATS delivers a message.
    await app.init();
    await app.startAllMicroservices();
    await app.listen(ops.http.port, ops.http.host);
    return {
      shutdownTimeoutMs: ops.shutdown.timeoutMs,
      // Work in flight finishes or is handed back (each module's shutdown hooks bound it);
      // unacknowledged events are redelivered to another replica.
      stop: async () => {
        const stopAcceptingFirst = definition.stopAcceptingFirst ?? true;
        await drainAndClose(app, { ...ops.shutdown, beforeClose: stopAcceptingFirst ? () => server.stopAccepting() : undefined });
        await dataSource.destroy();
      },
    };
  });
}
