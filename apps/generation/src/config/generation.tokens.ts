// The settings' type is declared beside their variables; re-exported here beside their DI token.
export type { GenerationSettings } from './generation.settings';

/** DI token of the generation service's DataSource (schema `generation`). */
export const GENERATION_DB = Symbol('GENERATION_DB');
/** DI token of the generation service's settings (GenerationSettings). */
export const GENERATION_SETTINGS = Symbol('GENERATION_SETTINGS');

/** OUTPUT_RETENTION_HOURS' default: a week. */
export const DEFAULT_RETENTION_SECONDS = 168 * 3600;
