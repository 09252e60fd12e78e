/**
 * The remote engine now lives with the other provider adapters (apps/generation/src/providers/remote).
 * This re-export keeps the package entry point (apps/generation/src/index.ts) unchanged; import from
 * the providers folder in new code.
 */
export type { RemoteEngineSettings } from '../providers/remote/remote-engine.settings';
