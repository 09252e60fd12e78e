import 'reflect-metadata';
import { processIdentity } from '@gen/config';
import { runNatsService } from '@gen/observability';
import { readCatalogueSettings } from './catalogue/catalogue.settings';
import { openGenerationDatabase } from './generation.database';
import { GenerationModule } from './generation.module';

/** Distributed mode: the generation service (catalogue, queue, engines, outbox relay); health and metrics on HTTP_PORT. */
runNatsService({
  service: 'generation',
  defaultHttpPort: 8082,
  readSettings: (env, ops) => {
    const catalogue = readCatalogueSettings(env, { allowPrivateUpstreams: false });
    return {
      storageDir: env.string('STORAGE_DIR', '.data/outputs'),
      espeakPath: catalogue.espeakPath,
      settings: {
        // As the gateway's default: outputs under the public base URL, which the gateway serves from STORAGE_DIR.
        cdnBaseUrl: env.url('CDN_BASE_URL', `${env.url('PUBLIC_BASE_URL', 'http://localhost:3000')}/cdn`),
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
        catalogueRefreshMs: catalogue.catalogueRefreshMs,
        upstreamAllowPrivateNetworks: catalogue.upstreamAllowPrivateNetworks,
        outputRetentionSeconds: catalogue.outputRetentionSeconds,
        outputSweepIntervalMs: catalogue.outputSweepIntervalMs,
      },
    };
  },
  openDatabase: openGenerationDatabase,
  // New submits go to the other replicas at once; jobs running here finish or are handed back.
  module: (dataSource, { settings, storageDir, espeakPath }) => GenerationModule.register({ dataSource, settings, storageDir, espeakPath }),
});
