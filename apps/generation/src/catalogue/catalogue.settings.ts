import type { EnvReader } from '@gen/config';

/** The catalogue's, engines' and outputs' settings, read the same way by the generation service and standalone. */
export interface CatalogueSettings {
  /** CATALOGUE_REFRESH_MS: how often each replica re-reads the catalogue. */
  catalogueRefreshMs: number;
  /** UPSTREAM_ALLOW_PRIVATE_NETWORKS: provider adapters may reach loopback/private addresses. */
  upstreamAllowPrivateNetworks: boolean;
  /** ESPEAK_NG_PATH: the program of the `voice` engine. */
  espeakPath: string;
  /** OUTPUT_RETENTION_HOURS: how long a completed job's output is kept, in seconds. */
  outputRetentionSeconds: number;
  /** OUTPUT_SWEEP_INTERVAL_MS: how often expired outputs are deleted. */
  outputSweepIntervalMs: number;
}

export function readCatalogueSettings(env: EnvReader, defaults: { allowPrivateUpstreams: boolean }): CatalogueSettings {
  for (const legacy of ['MODEL_ENGINES', 'MODEL_ENGINES_FILE']) {
    if (env.optionalString(legacy) !== undefined) {
      env.problem(
        `${legacy} is no longer read: engine bindings now live on each model of the catalogue. ` +
          'Move each binding into the model\'s "engine" field and apply it with `npm run cli -- models sync --file catalogue.json` ' +
          '(docs/engines.md, "Moving from MODEL_ENGINES"), then unset the variable',
      );
    }
  }
  return {
    catalogueRefreshMs: env.int('CATALOGUE_REFRESH_MS', 1_000, { min: 100, max: 5_000 }),
    upstreamAllowPrivateNetworks: env.bool('UPSTREAM_ALLOW_PRIVATE_NETWORKS', defaults.allowPrivateUpstreams),
    espeakPath: env.string('ESPEAK_NG_PATH', 'espeak-ng'),
    outputRetentionSeconds: env.int('OUTPUT_RETENTION_HOURS', 168, { min: 1, max: 87_600 }) * 3600,
    outputSweepIntervalMs: env.int('OUTPUT_SWEEP_INTERVAL_MS', 60_000, { min: 100, max: 3_600_000 }),
  };
}
