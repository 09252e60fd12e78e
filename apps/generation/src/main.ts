import 'reflect-metadata';
import { ConsoleLogger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EnvReader, processIdentity, readNatsConfig, runMain } from '@gen/config';
import { RpcErrorFilter } from '@gen/errors';
import { NatsJetStreamServer, TransportModule } from '@gen/transport';
import { openGenerationDatabase } from './generation.database';
import { GenerationModule } from './generation.module';
import { readModelEngines } from './remote/model-engines.config';

/** Distributed mode: the generation service (catalogue, queue, engines, outbox relay). */
runMain('generation', async () => {
  const env = new EnvReader();
  const databaseUrl = env.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  const nats = readNatsConfig(env, 'generation');
  const poolSize = env.int('DATABASE_POOL_SIZE', 20, { min: 1, max: 500 });
  const storageDir = env.string('STORAGE_DIR', '.data/outputs');
  const settings = {
    cdnBaseUrl: env.url('CDN_BASE_URL', 'http://localhost:3000/cdn'),
    workerConcurrency: env.int('WORKER_CONCURRENCY', 8, { min: 1, max: 1000 }),
    leaseMs: env.int('JOB_LEASE_MS', 15_000, { min: 500, max: 600_000 }),
    maxAttempts: env.int('JOB_MAX_ATTEMPTS', 3, { min: 1, max: 20 }),
    pollIntervalMs: env.int('JOB_POLL_INTERVAL_MS', 500, { min: 20, max: 60_000 }),
    engineTimeoutMs: env.int('ENGINE_TIMEOUT_MS', 120_000, { min: 100, max: 3_600_000 }),
    latencyScale: Number(env.string('ENGINE_LATENCY_SCALE', '1')),
    queueCapPerSlot: env.int('QUEUE_CAP_PER_SLOT', 10, { min: 0, max: 10_000 }),
    workerId: processIdentity('generation'),
  };
  const modelEngines = readModelEngines(env);
  env.done();
  const dataSource = await openGenerationDatabase(databaseUrl, poolSize);

  @Module({
    imports: [
      TransportModule.forRoot({ kind: 'nats', nats }),
      GenerationModule.register({ dataSource, settings, storageDir, modelEngines }),
    ],
  })
  class GenerationAppModule {}

  const app = await NestFactory.createMicroservice(GenerationAppModule, {
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
