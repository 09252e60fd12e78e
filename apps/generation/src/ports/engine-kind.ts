import type { OutputStorage } from '@gen/storage';
import type { Engine } from './engine';

/** What an engine kind may read from the process when it builds an engine. */
export interface ProviderContext {
  /** The environment, for credentials named by a binding (`tokenEnv`): never stored in the catalogue. */
  env(name: string): string | undefined;
  /**
   * Whether upstreams on loopback or private addresses may be reached (a self-hosted Cog on the
   * cluster network, tests): UPSTREAM_ALLOW_PRIVATE_NETWORKS; standalone allows it.
   */
  allowPrivateNetworks: boolean;
  /** Where provider adapters stream the outputs they download; absent (tools, unit tests): downloads are read into memory. */
  storage?: OutputStorage;
}

/** The provider of every built-in engine's models: they are demos, not AI models (docs/operations/catalogue.md). */
export const DEMO_PROVIDER = 'demo';

/**
 * A kind of engine a catalogue model can be bound to: `{"engine": "<kind>", ...settings}`.
 * Built-in engines (`image`, `voice`...) and provider adapters (`replicate`, `fal`...) alike.
 */
export interface EngineKind {
  readonly kind: string;
  /**
   * Who serves its models, as the catalogue shows it (`provider`): `replicate`, `fal`, `openai`...;
   * `demo` for the built-in engines, which are not AI models and may be labelled nothing else.
   */
  readonly provider: string;
  /**
   * Checks a binding's settings (everything but `engine`) with no I/O and no environment, since
   * the operator CLI runs it too. Each problem names its field as `${where}.<field>`.
   */
  validate(settings: Record<string, unknown>, where: string, problems: string[]): void;
  /**
   * Builds the engine of one model from settings that passed `validate`. A missing credential or
   * program is not an exception: the engine's `unavailableReason()` says so, and the model is
   * listed unavailable instead of failing the catalogue.
   */
  create(modelId: string, settings: Record<string, unknown>, context: ProviderContext): Engine;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
