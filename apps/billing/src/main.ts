import 'reflect-metadata';
import { ConsoleLogger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EnvReader, readNatsConfig, runMain } from '@gen/config';
import { RpcErrorFilter } from '@gen/errors';
import { NatsJetStreamServer, TransportModule } from '@gen/transport';
import { BillingModule } from './billing.module';
import { openBillingDatabase } from './billing.database';

/** Distributed mode: the billing service alone, on NATS and its own Postgres schema. */
runMain('billing', async () => {
  const env = new EnvReader();
  const databaseUrl = env.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  const nats = readNatsConfig(env, 'billing');
  const poolSize = env.int('DATABASE_POOL_SIZE', 20, { min: 1, max: 500 });
  env.done();
  const dataSource = await openBillingDatabase(databaseUrl, poolSize);

  @Module({ imports: [TransportModule.forRoot({ kind: 'nats', nats }), BillingModule.register(dataSource)] })
  class BillingAppModule {}

  const app = await NestFactory.createMicroservice(BillingAppModule, {
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
