import 'reflect-metadata';
import { ConsoleLogger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigError, EnvReader, readNatsConfig, runMain } from '@gen/config';
import { RpcErrorFilter } from '@gen/errors';
import { NatsJetStreamServer, TransportModule } from '@gen/transport';
import { openWebhooksDatabase } from './webhooks.database';
import { parseAllowList } from '@gen/webhook-policy';
import { WebhooksModule } from './webhooks.module';
import { WEBHOOKS_DEFAULTS, WebhooksSettings } from './webhooks.settings';

/** Distributed mode: the webhooks service (deliveries and their attempts). */
runMain('webhooks', async () => {
  const env = new EnvReader();
  const databaseUrl = env.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  const nats = readNatsConfig(env, 'webhooks');
  const poolSize = env.int('DATABASE_POOL_SIZE', 20, { min: 1, max: 500 });
  const settings: WebhooksSettings = {
    allowHttp: env.bool('WEBHOOK_ALLOW_HTTP', false),
    allowPrivateNetworks: env.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    allowList: env.list('WEBHOOK_ALLOW_LIST'),
    pollIntervalMs: env.int('WEBHOOK_POLL_INTERVAL_MS', WEBHOOKS_DEFAULTS.pollIntervalMs, { min: 50, max: 60_000 }),
    leaseMs: env.int('WEBHOOK_LEASE_MS', WEBHOOKS_DEFAULTS.leaseMs, { min: 8_000, max: 600_000 }),
    maxInFlight: env.int('WEBHOOK_MAX_IN_FLIGHT', WEBHOOKS_DEFAULTS.maxInFlight, { min: 1, max: 10_000 }),
  };
  env.done();
  try {
    parseAllowList(settings.allowList);
  } catch (error) {
    throw new ConfigError([`WEBHOOK_ALLOW_LIST: ${(error as Error).message}`]);
  }
  const dataSource = await openWebhooksDatabase(databaseUrl, poolSize);

  @Module({
    imports: [TransportModule.forRoot({ kind: 'nats', nats }), WebhooksModule.register({ dataSource, settings })],
  })
  class WebhooksAppModule {}

  const app = await NestFactory.createMicroservice(WebhooksAppModule, {
    strategy: new NatsJetStreamServer(nats),
    logger: new ConsoleLogger({ json: true }),
  });
  app.useGlobalFilters(new RpcErrorFilter());
  app.enableShutdownHooks();
  await app.listen();
  return {
    stop: async () => {
      await app.close();
      await dataSource.destroy();
    },
  };
});
