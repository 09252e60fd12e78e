import type { SettingsOf } from '@gen/config';
import type { ProviderCallbackSettings } from './callbacks/provider-callbacks.settings';
import type { GENERATION_VARIABLES } from './generation.settings';

/** DI token of the generation service's DataSource (schema `generation`). */
export const GENERATION_DB = Symbol('GENERATION_DB');
/** DI token of the generation service's settings (GenerationSettings). */
export const GENERATION_SETTINGS = Symbol('GENERATION_SETTINGS');

/** OUTPUT_RETENTION_HOURS' default: a week. */
export const DEFAULT_RETENTION_SECONDS = 168 * 3600;

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
