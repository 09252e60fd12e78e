import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { EnvReader, readNatsConfig, readOpsConfig, runMain } from '@gen/config';
import { createServiceHttpApp, drainAndClose, flagCheck, natsCheck, ObservabilityModule, postgresCheck } from '@gen/observability';
import { NatsJetStreamServer, NatsRpcClient, TransportModule } from '@gen/transport';
import { BillingModule } from './billing.module';
import { openBillingDatabase } from './billing.database';

/** Distributed mode: the billing service alone, on NATS and its own Postgres schema; health and metrics on HTTP_PORT. */
runMain('billing', async () => {
  const env = new EnvReader();
  const databaseUrl = env.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  const nats = readNatsConfig(env, 'billing');
  const poolSize = env.int('DATABASE_POOL_SIZE', 20, { min: 1, max: 500 });
  const ops = readOpsConfig(env, { portVariable: 'HTTP_PORT', port: 8081, host: '0.0.0.0', shutdownDelayMs: 0 });
  const migrations = env.oneOf('MIGRATIONS', ['run', 'verify'] as const, 'run');
  env.done();
  const dataSource = await openBillingDatabase(databaseUrl, poolSize, migrations);
  const server = new NatsJetStreamServer(nats, Math.min(10_000, ops.shutdown.timeoutMs / 2));

  @Module({
    imports: [
      ObservabilityModule.forRoot({
        service: 'billing',
        logging: { level: ops.logLevel },
        answersPingFor: ['billing'],
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
      BillingModule.register(dataSource),
    ],
  })
  class BillingAppModule {}

  const app = await createServiceHttpApp(BillingAppModule);
  app.connectMicroservice({ strategy: server }, { inheritAppConfig: false });
  await app.startAllMicroservices();
  await app.listen(ops.http.port, ops.http.host);
  return {
    shutdownTimeoutMs: ops.shutdown.timeoutMs,
    stop: async () => {
      await drainAndClose(app, { ...ops.shutdown, beforeClose: () => server.stopAccepting() });
      await dataSource.destroy();
    },
  };
});
