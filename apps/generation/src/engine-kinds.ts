import { builtInEngineKinds, sharedEngineKind } from './engines/built-in-kinds';
import type { Engine } from './ports/engine';
import type { EngineKind } from './ports/engine-kind';
import { providerEngineKinds } from './providers';

/** Every engine kind a model can be bound to: built-in, provider adapters, then the caller's own. */
export function engineKinds(options: { engines?: Record<string, Engine>; espeakPath?: string } = {}): Map<string, EngineKind> {
  const kinds = [
    ...builtInEngineKinds({ espeakPath: options.espeakPath }),
    ...providerEngineKinds(),
    ...Object.entries(options.engines ?? {}).map(([name, engine]) => ({ ...sharedEngineKind(engine), kind: name })),
  ];
  return new Map(kinds.map((kind) => [kind.kind, kind]));
}
