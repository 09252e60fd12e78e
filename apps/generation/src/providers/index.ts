import { cogEngineKind } from './cog/cog.kind';
import { falEngineKind } from './fal/fal.kind';
import { openAiImagesEngineKind } from './openai-images/openai-images.kind';
import type { EngineKind } from '../ports/engine-kind';
import { remoteEngineKind } from './remote/remote-engine.kind';
import { replicateEngineKind } from './replicate/replicate.kind';

/** The provider adapters a model can be bound to (docs/operations/providers.md, "Models and providers"). */
export function providerEngineKinds(): EngineKind[] {
  return [replicateEngineKind, cogEngineKind, falEngineKind, openAiImagesEngineKind, remoteEngineKind];
}
