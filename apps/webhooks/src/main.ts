import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { ConfigError, EnvReader, readNatsConfig, readOpsConfig, runMain } from '@gen/config';
import { createServiceHttpApp, drainAndClose, flagCheck, natsCheck, ObservabilityModule, postgresCheck } from '@gen/observability';
import { NatsJetStreamServer, NatsRpcClient, TransportModule } from '@gen/transport';
import { openWebhooksDatabase } from './webhooks.database';
import { parseAllowList } from '@gen/webhook-policy';
import { WebhooksModule } from './webhooks.module';
import { WEBHOOKS_DEFAULTS, WebhooksSettings } from './webhooks.settings';

/** Distributed mode: the webhooks service (deliveries and their attempts); health and metrics on HTTP_PORT. */
runMain('webhooks', async () => {
  const env = new EnvReader();
  const databaseUrl = env.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  const nats = readNatsConfig(env, 'webhooks');
  const poolSize = env.int('DATABASE_POOL_SIZE', 20, { min: 1, max: 500 });
  const ops = readOpsConfig(env, { portVariable: 'HTTP_PORT', port: 8083, host: '0.0.0.0', shutdownDelayMs: 0 });
  const settings: WebhooksSettings = {
    allowHttp: env.bool('WEBHOOK_ALLOW_HTTP', false),
    allowPrivateNetworks: env.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    allowList: env.list('WEBHOOK_ALLOW_LIST'),
    pollIntervalMs: env.int('WEBHOOK_POLL_INTERVAL_MS', WEBHOOKS_DEFAULTS.pollIntervalMs, { min: 50, max: 60_000 }),
    leaseMs: env.int('WEBHOOK_LEASE_MS', WEBHOOKS_DEFAULTS.leaseMs, { min: 8_000, max: 600_000 }),
    maxInFlight: env.int('WEBHOOK_MAX_IN_FLIGHT', WEBHOOKS_DEFAULTS.maxInFlight, { min: 1, max: 10_000 }),
    connectionsPerOrigin: env.int('WEBHOOK_CONNECTIONS_PER_ORIGIN', WEBHOOKS_DEFAULTS.connectionsPerOrigin, { min: 1, max: 1_000 }),
  };
  const migrations = env.oneOf('MIGRATIONS', ['run', 'verify'] as const, 'run');
  env.done();
  try {
    parseAllowList(settings.allowList);
  } catch (error) {
    throw new ConfigError([`WEBHOOK_ALLOW_LIST: ${(error as Error).message}`]);
  }
  const dataSource = await openWebhooksDatabase(databaseUrl, poolSize, migrations);
  const server = new NatsJetStreamServer(nats, Math.min(10_000, ops.shutdown.timeoutMs / 2));

  @Module({
    imports: [
      ObservabilityModule.forRoot({
        service: 'webhooks',
        logging: { level: ops.logLevel },
        answersPingFor: ['webhooks'],
        readiness: {
          inject: [NatsRpcClient],
          useFactory: (rpc: NatsRpcClient) => [
            postgresCheck('postgres', dataSource),
            natsCheck('nats', () => rpc.connection()),
            flagCheck('nats:subscriptions', () => server.isConnected(), 'the NATS server side is not connected'),
          ],
        },
      }),
      TransportModule.forRoot({ kind: 'nats', nats }),
      WebhooksModule.register({ dataSource, settings }),
    ],
  })
  class WebhooksAppModule {}

  const app = await createServiceHttpApp(WebhooksAppModule);
  app.connectMicroservice({ strategy: server }, { inheritAppConfig: false });
  await app.startAllMicroservices();
  await app.listen(ops.http.port, ops.http.host);
  return {
    shutdownTimeoutMs: ops.shutdown.timeoutMs,
    // Deliveries in flight finish (the dispatcher's shutdown hooks bound them); unacknowledged events are redelivered.
    stop: async () => {
      await drainAndClose(app, { ...ops.shutdown, beforeClose: () => server.stopAccepting() });
      await dataSource.destroy();
    },
  };
});
