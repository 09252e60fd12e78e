import { DEFAULT_JOB_ADMISSION_SETTINGS } from './job-admission.settings';
import { DEFAULT_JOB_FINISHER_SETTINGS } from './job-finisher.settings';
import { DEFAULT_OUTBOX_SETTINGS } from './outbox.settings';
import { readStorageSettings, StorageSettings } from '@gen/storage';
import { byMode, decimal, EnvReader, flag, int, OpsConfig, PUBLIC_URL_VARIABLES, SettingsOf, STORAGE_DIR, text } from '@gen/config';
import { ProviderCallbackSettings, readProviderCallbackSettings } from './provider-callbacks.settings';

/**
 * The generation service's own variables (README, "Configuration"), read by the service and by
 * standalone. Each value reaches the code as the field of the same name of GenerationSettings
 * (GENERATION_SETTINGS): a new variable is one line here.
 */
export const GENERATION_VARIABLES = {
  workerConcurrency: int('WORKER_CONCURRENCY', 8, 'jobs of built-in engines (CPU work in this process) one process runs at once', { min: 1, max: 1000 }),
  providerConcurrency: int('PROVIDER_CONCURRENCY', 256, 'provider calls one process makes at once (submits, status checks, output downloads); parked jobs waiting upstream hold none', { min: 1, max: 10_000 }),
  providerParking: flag('PROVIDER_PARKING', true, 'provider jobs wait upstream parked in the database, checked by a poll scheduler; `false` keeps each one in a worker slot for its whole life (the behaviour before parking, for comparison)'),
  providerCheckIntervalMs: int('PROVIDER_CHECK_INTERVAL_MS', 100, 'how often each process looks for parked jobs due for a status check', { min: 10, max: 10_000 }),
  providerCheckBatch: int('PROVIDER_CHECK_BATCH', 200, 'parked jobs one status-check claim takes at most', { min: 1, max: 10_000 }),
  providerCheckJitterPercent: int('PROVIDER_CHECK_JITTER_PERCENT', 20, "spread of a parked job's next status check, as a share of its delay (up to this much earlier or later), so that jobs submitted together are not checked, collected and finished in one burst", { min: 0, max: 50 }),
  leaseMs: int('JOB_LEASE_MS', 15_000, "a job's lease; a dead worker's jobs are retried after it", { min: 500, max: 600_000 }),
  maxAttempts: int('JOB_MAX_ATTEMPTS', 3, 'attempts before a job is failed and refunded', { min: 1, max: 20 }),
  pollIntervalMs: int('JOB_POLL_INTERVAL_MS', 500, 'how often queued work and expired leases are looked for', { min: 20, max: 60_000 }),
  engineTimeoutMs: int('ENGINE_TIMEOUT_MS', 120_000, 'hard cap on one engine run', { min: 100, max: 3_600_000 }),
  latencyScale: decimal('ENGINE_LATENCY_SCALE', 1, "multiplies the built-in engines' simulated latency (0 in tests)", { min: 0 }),
  queueCapPerSlot: int('QUEUE_CAP_PER_SLOT', 10, 'jobs an account may have waiting per parallel slot (beyond the running ones) before `429`', { min: 0, max: 10_000 }),
  catalogueRefreshMs: int('CATALOGUE_REFRESH_MS', 1_000, 'how often each replica re-reads the model catalogue (changes reach every gateway within about 3 s)', { min: 100, max: 5_000 }),
  upstreamAllowPrivateNetworks: flag('UPSTREAM_ALLOW_PRIVATE_NETWORKS', byMode({ standalone: true, distributed: false }), 'provider adapters may reach loopback/private addresses (a self-hosted Cog on the cluster network)'),
  espeakPath: text('ESPEAK_NG_PATH', 'espeak-ng', 'the program `voice-1` speaks with (Debian: `apt-get install espeak-ng`); missing, the model is listed unavailable'),
  outputRetentionSeconds: int('OUTPUT_RETENTION_HOURS', 168, 'how long a completed output is kept; then deleted, its URL answers `410`', { min: 1, max: 87_600, scale: 3600 }),
  outputSweepIntervalMs: int('OUTPUT_SWEEP_INTERVAL_MS', 60_000, 'how often expired outputs are deleted', { min: 100, max: 3_600_000 }),
  outboxLeaseMs: int('OUTBOX_LEASE_MS', DEFAULT_OUTBOX_SETTINGS.leaseMs, "how long a relay holds the events it is publishing (the longest a dead relay's event waits)", { min: 500, max: 600_000 }),
  outboxRetentionHours: int('OUTBOX_RETENTION_HOURS', DEFAULT_OUTBOX_SETTINGS.retentionMs / 3_600_000, "how long a published event stays in the outbox (what `jobs inspect` lists as sent) before it is deleted", { min: 1, max: 8_760 }),
  outboxBatch: int('OUTBOX_BATCH', DEFAULT_OUTBOX_SETTINGS.batch, 'events the outbox poll claims at a time', { min: 1, max: 10_000 }),
  jobAdmitBatch: int('JOB_ADMIT_BATCH', DEFAULT_JOB_ADMISSION_SETTINGS.maxBatch, 'submits admitted by one statement and one commit at most (group commit)', { min: 1, max: 10_000 }),
  batchKeepFreePercent: int('BATCH_KEEP_FREE_PERCENT', 10, "share of an account's parallel slots its batches leave free for its interactive requests (at least one slot when the account has two or more), so a submit never waits behind batch lines", { min: 0, max: 90 }),
  batchYieldBusyPercent: int('BATCH_YIELD_BUSY_PERCENT', 70, "how busy a generation process's event loop may be (percent of the time, lately) for its batch feeder to admit more batch lines; busier, batches wait and interactive work goes first (100: never wait)", { min: 1, max: 100 }),
  batchAdmitPerPass: int('BATCH_ADMIT_PER_PASS', 24, "batch lines one feeder pass admits at most, per account (the next pass follows 100 ms later while more slots are free): slots that free together are refilled over a second or two rather than at once, so a batch's jobs do not start, run and finish in waves that make interactive requests wait", { min: 1, max: 10_000 }),
  batchMaxInFlight: int('BATCH_MAX_IN_FLIGHT', 500, "batches' jobs queued or processing at once, deployment-wide (batch lines wait beyond it, so batches never fill every provider slot)", { min: 1, max: 1_000_000 }),
  jobFinishBatch: int('JOB_FINISH_BATCH', DEFAULT_JOB_FINISHER_SETTINGS.maxBatch, 'job finishes written in one transaction at most (group commit)', { min: 1, max: 10_000 }),
};

/** The generation service's settings: one field per variable of GENERATION_VARIABLES, and what no variable sets. */
export interface GenerationSettings extends SettingsOf<typeof GENERATION_VARIABLES> {
  /** Base of output URLs, e.g. http://localhost:3000/cdn (CDN_BASE_URL). */
  cdnBaseUrl: string;
  /** Unique name of this process (lease owner). */
  workerId: string;
  /** On shutdown, how long running jobs may take to finish before they are handed back (default 20 s). */
  drainTimeoutMs?: number;
  /** Provider callbacks: their URLs' base and token key (absent: no callbacks, e.g. in tools and unit tests). */
  providerCallbacks?: ProviderCallbackSettings;
}

/** Variables no longer read; one still set is refused, with how to move on. */
const RETIRED = ['MODEL_ENGINES', 'MODEL_ENGINES_FILE'];

/**
 * The generation settings of a process, given the output URLs' base and the process's name (for
 * leases). Standalone calls it too.
 */
export function readGenerationSettings(
  env: EnvReader,
  shared: { ops: OpsConfig; cdnBaseUrl: string; workerId: string; /** standalone: where to keep a generated callback key */ callbackKeyFile?: string },
): GenerationSettings {
  for (const name of RETIRED) {
    if (env.text(name) !== undefined) {
      env.problem(
        `${name} is no longer read: engine bindings now live on each model of the catalogue. ` +
          'Move each binding into the model\'s "engine" field and apply it with `npm run cli -- models sync --file catalogue.json` ' +
          '(docs/operations/providers.md, "Moving from MODEL_ENGINES"), then unset the variable',
      );
    }
  }
  return {
    ...env.readAll(GENERATION_VARIABLES),
    cdnBaseUrl: shared.cdnBaseUrl,
    workerId: shared.workerId,
    providerCallbacks: readProviderCallbackSettings(env, shared.callbackKeyFile ?? null),
    // Running jobs get most of the shutdown budget to finish; the rest are handed back to the queue.
    drainTimeoutMs: Math.max(500, shared.ops.shutdown.timeoutMs - 5_000),
  };
}

/** What the distributed generation service reads of its own (apps/generation/src/main.ts). */
export function readGenerationServiceSettings(
  env: EnvReader,
  ops: OpsConfig,
  workerId: string,
): { settings: GenerationSettings; storageDir: string; storage: StorageSettings } {
  // As the gateway's default: outputs under the public base URL, which the gateway serves from its storage.
  const { cdnBaseUrl } = env.readAll(PUBLIC_URL_VARIABLES);
  const storageDir = env.read(STORAGE_DIR);
  return { storageDir, storage: readStorageSettings(env, storageDir), settings: readGenerationSettings(env, { ops, cdnBaseUrl, workerId }) };
}
