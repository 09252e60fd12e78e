import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { EnvReader, processIdentity, readNatsConfig, readOpsConfig, runMain } from '@gen/config';
import { createServiceHttpApp, drainAndClose, flagCheck, natsCheck, ObservabilityModule, postgresCheck } from '@gen/observability';
import { NatsJetStreamServer, NatsRpcClient, TransportModule } from '@gen/transport';
import { openGenerationDatabase } from './generation.database';
import { GenerationModule } from './generation.module';
import { readModelEngines } from './remote/model-engines.config';

/** Distributed mode: the generation service (catalogue, queue, engines, outbox relay); health and metrics on HTTP_PORT. */
runMain('generation', async () => {
  const env = new EnvReader();
  const databaseUrl = env.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  const nats = readNatsConfig(env, 'generation');
  const poolSize = env.int('DATABASE_POOL_SIZE', 20, { min: 1, max: 500 });
  const storageDir = env.string('STORAGE_DIR', '.data/outputs');
  const ops = readOpsConfig(env, { portVariable: 'HTTP_PORT', port: 8082, host: '0.0.0.0', shutdownDelayMs: 0 });
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
    // Running jobs get most of the shutdown budget to finish; the rest are handed back to the queue.
    drainTimeoutMs: Math.max(500, ops.shutdown.timeoutMs - 5_000),
  };
  const modelEngines = readModelEngines(env);
  const migrations = env.oneOf('MIGRATIONS', ['run', 'verify'] as const, 'run');
  env.done();
  const dataSource = await openGenerationDatabase(databaseUrl, poolSize, migrations);
  const server = new NatsJetStreamServer(nats, Math.min(10_000, ops.shutdown.timeoutMs / 2));

  @Module({
    imports: [
      ObservabilityModule.forRoot({
        service: 'generation',
        logging: { level: ops.logLevel },
        answersPingFor: ['generation'],
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
      GenerationModule.register({ dataSource, settings, storageDir, modelEngines }),
    ],
  })
  class GenerationAppModule {}

  const app = await createServiceHttpApp(GenerationAppModule);
  app.connectMicroservice({ strategy: server }, { inheritAppConfig: false });
  await app.startAllMicroservices();
  await app.listen(ops.http.port, ops.http.host);
  return {
    shutdownTimeoutMs: ops.shutdown.timeoutMs,
    // New submits go to the other replicas at once; jobs running here finish or are handed back.
    stop: async () => {
      await drainAndClose(app, { ...ops.shutdown, beforeClose: () => server.stopAccepting() });
      await dataSource.destroy();
    },
  };
});
