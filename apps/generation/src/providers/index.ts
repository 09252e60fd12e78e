import type { EngineKind } from './provider-kind';
import { remoteEngineKind } from '../remote/remote-engine.kind';

export * from './provider-kind';

/** The provider adapters a model can be bound to (docs/engines.md, "Models and providers"). */
export function providerEngineKinds(): EngineKind[] {
  return [remoteEngineKind];
}
