import { AudioEngine } from './audio.engine';
import type { Engine } from '../ports/engine';
import { ImageEngine } from './image.engine';
import { InstantEngine } from './instant.engine';
import { MeshEngine } from './mesh.engine';
import { VideoEngine } from './video.engine';

export { ImageEngine } from './image.engine';
export { VideoEngine } from './video.engine';
export { AudioEngine } from './audio.engine';
export { MeshEngine } from './mesh.engine';
export { InstantEngine } from './instant.engine';
export { readNumberParam, readLatencyMs, type NumberParamOptions } from './engine-params';
export { beginGeneration, checkpoint, delay, throwIfAborted } from './engine-runtime';

/** Built-in offline engines keyed by engine name (`image`, `video`, `audio`, `mesh`, `instant`). */
export function createBuiltInEngines(): Record<string, Engine> {
  const engines: Engine[] = [new ImageEngine(), new VideoEngine(), new AudioEngine(), new MeshEngine(), new InstantEngine()];
  return Object.fromEntries(engines.map((engine) => [engine.name, engine]));
}
