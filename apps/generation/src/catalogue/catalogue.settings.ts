import type { EnvReader } from '@gen/config';

/** The catalogue's and the engines' settings, read the same way by the generation service and standalone. */
export interface CatalogueSettings {
  /** CATALOGUE_REFRESH_MS: how often each replica re-reads the catalogue. */
  catalogueRefreshMs: number;
  /** UPSTREAM_ALLOW_PRIVATE_NETWORKS: provider adapters may reach loopback/private addresses. */
  upstreamAllowPrivateNetworks: boolean;
  /** ESPEAK_NG_PATH: the program of the `voice` engine. */
  espeakPath: string;
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
  };
}
