import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { HealthSubjects } from '@gen/contracts';
import { configureObservedHttp, runNatsService, servicePingCheck } from '@gen/observability';
import { openAuthDatabase } from './gateway.database';
import { GatewayModule } from './gateway.module';
import { readGatewaySettings } from './gateway.settings';
import { configureHttpApp, createFastifyAdapter } from './http/http-app';
import { gatewayRelease } from './gateway.release';

/** Distributed mode: the public HTTP API (and the key questions other services ask over NATS). */
runNatsService({
  service: 'gateway',
  release: gatewayRelease(),
  readSettings: (env, ops) => readGatewaySettings(env, ops),
  openDatabase: openAuthDatabase,
  module: (dataSource, { settings, dashboard, secretKeys }) => GatewayModule.register({ dataSource, settings, dashboard, secretKeys }),
  // Ready when its own database and NATS answer, and each service behind it answers its ping.
  readiness: (rpc) =>
    (['billing', 'generation', 'webhooks'] as const).map((service) =>
      servicePingCheck(service, (timeoutMs) => rpc.request(HealthSubjects[service], {}, timeoutMs)),
    ),
  createApp: async (module, { http }) => {
    const app = await NestFactory.create<NestFastifyApplication>(module, createFastifyAdapter(http.limits, http.trustProxy), { bufferLogs: true });
    configureObservedHttp(app);
    configureHttpApp(app, http.limits);
    return app;
  },
  stopAcceptingFirst: false,
});
