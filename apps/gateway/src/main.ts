import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { EnvReader, runMain } from '@gen/config';
import { HealthSubjects } from '@gen/contracts';
import {
  configureObservedHttp,
  drainAndClose,
  flagCheck,
  natsCheck,
  ObservabilityModule,
  postgresCheck,
  servicePingCheck,
} from '@gen/observability';
import { NatsJetStreamServer, NatsRpcClient, TransportModule } from '@gen/transport';
import { openAuthDatabase } from './gateway.database';
import { GatewayModule } from './gateway.module';
import { readGatewayConfig } from './gateway.settings';
import { configureHttpApp, createFastifyAdapter } from './http/http-app';

/** Distributed mode: the public HTTP API (and the key questions other services ask over NATS). */
runMain('gateway', async () => {
  const env = new EnvReader(process.env, 'gateway');
  const { ops, database, nats, http, settings, dashboard, secretKeys } = readGatewayConfig(env);
  env.done();
  const dataSource = await openAuthDatabase(database.url, database.poolSize, database.migrations);
  const server = new NatsJetStreamServer(nats, Math.min(10_000, ops.shutdown.timeoutMs / 2));

  @Module({
    imports: [
      ObservabilityModule.forRoot({
        service: 'gateway',
        logging: { level: ops.logLevel },
        answersPingFor: ['gateway'],
        readiness: {
          inject: [NatsRpcClient],
          // Ready when its own database and NATS answer, and each service behind it answers its ping.
          useFactory: (rpc: NatsRpcClient) => [
            postgresCheck('postgres', dataSource),
            natsCheck('nats', () => rpc.connection()),
            flagCheck('nats:subscriptions', () => server.isConnected(), 'the NATS server side is not connected'),
            ...(['billing', 'generation', 'webhooks'] as const).map((service) =>
              servicePingCheck(service, (timeoutMs) => rpc.request(HealthSubjects[service], {}, timeoutMs)),
            ),
          ],
        },
      }),
      TransportModule.forRoot({ kind: 'nats', nats, refusals: server.refusals }),
      GatewayModule.register({ dataSource, settings, dashboard, secretKeys }),
    ],
  })
  class GatewayAppModule {}

  const app = await NestFactory.create<NestFastifyApplication>(GatewayAppModule, createFastifyAdapter(http.limits, http.trustProxy), {
    bufferLogs: true,
  });
  configureObservedHttp(app);
  configureHttpApp(app, http.limits);
  app.connectMicroservice({ strategy: server }, { inheritAppConfig: false });
  // Every module's init hooks run before NATS delivers a message.
  await app.init();
  await app.startAllMicroservices();
  await app.listen(ops.http.port, ops.http.host);
  return {
    shutdownTimeoutMs: ops.shutdown.timeoutMs,
    stop: async () => {
      await drainAndClose(app, ops.shutdown);
      await dataSource.destroy();
    },
  };
});
