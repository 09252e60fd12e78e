import 'reflect-metadata';
import { ConsoleLogger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { EnvReader, readNatsConfig, runMain } from '@gen/config';
import { NatsJetStreamServer, TransportModule } from '@gen/transport';
import { readDashboardSettings, readWebhookPolicy, readWebhookSecretKeys } from './dashboard/dashboard.settings';
import { openAuthDatabase } from './gateway.database';
import { GatewayModule } from './gateway.module';
import { configureHttpApp, createFastifyAdapter } from './http/http-app';

/** Distributed mode: the public HTTP API (and the key questions other services ask over NATS). */
runMain('gateway', async () => {
  const env = new EnvReader();
  const databaseUrl = env.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  const nats = readNatsConfig(env, 'gateway');
  const poolSize = env.int('DATABASE_POOL_SIZE', 20, { min: 1, max: 500 });
  const port = env.int('PORT', 3000, { min: 0, max: 65535 });
  const host = env.string('HOST', '0.0.0.0');
  const publicBaseUrl = env.url('PUBLIC_BASE_URL', `http://localhost:${port}`);
  const settings = {
    publicBaseUrl,
    syncWaitMs: env.int('SYNC_WAIT_MS', 30_000, { min: 0, max: 300_000 }),
    bodyLimitBytes: env.int('BODY_LIMIT_BYTES', 64 * 1024, { min: 1024, max: 10 * 1024 * 1024 }),
    outputsDir: env.optionalString('STORAGE_DIR') ?? null,
    rpcTimeoutMs: nats.requestTimeoutMs,
    webhookPolicy: readWebhookPolicy(env, { allowHttp: false, allowPrivate: false }),
  };
  const dashboard = readDashboardSettings(env, { publicBaseUrl, cdnBaseUrl: env.url('CDN_BASE_URL', `${publicBaseUrl}/cdn`) });
  const secretKeys = readWebhookSecretKeys(env);
  env.done();
  const dataSource = await openAuthDatabase(databaseUrl, poolSize);

  @Module({
    imports: [TransportModule.forRoot({ kind: 'nats', nats }), GatewayModule.register({ dataSource, settings, dashboard, secretKeys })],
  })
  class GatewayAppModule {}

  const app = await NestFactory.create<NestFastifyApplication>(GatewayAppModule, createFastifyAdapter(settings.bodyLimitBytes), {
    logger: new ConsoleLogger({ json: true }),
  });
  configureHttpApp(app);
  app.connectMicroservice({ strategy: new NatsJetStreamServer(nats) }, { inheritAppConfig: false });
  await app.startAllMicroservices();
  await app.listen(port, host);
  return {
    stop: async () => {
      await app.close();
      await dataSource.destroy();
    },
  };
});
