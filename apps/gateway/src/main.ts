import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { EnvReader, readHttpLimits, readNatsConfig, readOpsConfig, runMain, readTrustProxy } from '@gen/config';
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
import { DISTRIBUTED_WEBHOOK_POLICY_DEFAULTS, readDashboardSettings, readWebhookPolicy, readWebhookSecretKeys } from './dashboard/dashboard.settings';
import { openAuthDatabase } from './gateway.database';
import { GatewayModule } from './gateway.module';
import { configureHttpApp, createFastifyAdapter } from './http/http-app';

/** Distributed mode: the public HTTP API (and the key questions other services ask over NATS). */
runMain('gateway', async () => {
  const env = new EnvReader();
  const databaseUrl = env.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  const nats = readNatsConfig(env, 'gateway');
  const poolSize = env.int('DATABASE_POOL_SIZE', 20, { min: 1, max: 500 });
  const ops = readOpsConfig(env, { portVariable: 'PORT', port: 3000, host: '0.0.0.0', shutdownDelayMs: 2_000 });
  const publicBaseUrl = env.url('PUBLIC_BASE_URL', `http://localhost:${ops.http.port}`);
  const httpLimits = readHttpLimits(env);
  const settings = {
    publicBaseUrl,
    syncWaitMs: env.int('SYNC_WAIT_MS', 30_000, { min: 0, max: 300_000 }),
    bodyLimitBytes: httpLimits.bodyLimitBytes,
    outputsDir: env.optionalString('STORAGE_DIR') ?? null,
    rpcTimeoutMs: nats.requestTimeoutMs,
    webhookPolicy: readWebhookPolicy(env, DISTRIBUTED_WEBHOOK_POLICY_DEFAULTS),
    streamsPerAccount: env.int('SSE_STREAMS_PER_ACCOUNT', 20, { min: 1, max: 10_000 }),
    streamHeartbeatMs: env.int('SSE_HEARTBEAT_MS', 15_000, { min: 100, max: 300_000 }),
  };
  const dashboard = readDashboardSettings(env, { publicBaseUrl, cdnBaseUrl: env.url('CDN_BASE_URL', `${publicBaseUrl}/cdn`) });
  const secretKeys = readWebhookSecretKeys(env);
  const migrations = env.oneOf('MIGRATIONS', ['run', 'verify'] as const, 'run');
  const trustProxy = readTrustProxy(env);
  env.done();
  const dataSource = await openAuthDatabase(databaseUrl, poolSize, migrations);
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
      TransportModule.forRoot({ kind: 'nats', nats }),
      GatewayModule.register({ dataSource, settings, dashboard, secretKeys }),
    ],
  })
  class GatewayAppModule {}

  const app = await NestFactory.create<NestFastifyApplication>(GatewayAppModule, createFastifyAdapter(httpLimits, trustProxy), {
    bufferLogs: true,
  });
  configureObservedHttp(app);
  configureHttpApp(app, httpLimits);
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
