/** DI token of the generation service's DataSource (schema `generation`). */
export const GENERATION_DB = Symbol('GENERATION_DB');
/** DI token of the generation service's settings (GenerationSettings). */
export const GENERATION_SETTINGS = Symbol('GENERATION_SETTINGS');

/** OUTPUT_RETENTION_HOURS' default: a week. */
export const DEFAULT_RETENTION_SECONDS = 168 * 3600;

export interface GenerationSettings {
  /** Base of output URLs, e.g. http://localhost:3000/cdn */
  cdnBaseUrl: string;
  /** Jobs this process runs at once, across accounts. */
  workerConcurrency: number;
  /** How long a claimed job stays ours without a heartbeat. */
  leaseMs: number;
  /** Attempts before a job whose worker vanished is failed (and refunded). */
  maxAttempts: number;
  /** How often queued work and expired leases are looked for (other replicas' submissions, restarts). */
  pollIntervalMs: number;
  /** Hard cap on one engine run. */
  engineTimeoutMs: number;
  /** Multiplies each model's simulated latency (tests and benchmarks use 0). */
  latencyScale: number;
  /** Jobs an account may have waiting per parallel slot, beyond those running (queue cap; default 10). */
  queueCapPerSlot: number;
  /** Unique name of this process (lease owner). */
  workerId: string;
  /** On shutdown, how long running jobs may take to finish before they are handed back (default 20 s). */
  drainTimeoutMs?: number;
  /** How often the catalogue is re-read from the database (CATALOGUE_REFRESH_MS; default 1 s). */
  catalogueRefreshMs?: number;
  /** How long a completed job's output is kept (OUTPUT_RETENTION_HOURS; default a week). */
  outputRetentionSeconds?: number;
  /** How often expired outputs are deleted (default 60 s). */
  outputSweepIntervalMs?: number;
  /** Whether provider adapters may reach loopback or private addresses (UPSTREAM_ALLOW_PRIVATE_NETWORKS). */
  upstreamAllowPrivateNetworks?: boolean;
}
