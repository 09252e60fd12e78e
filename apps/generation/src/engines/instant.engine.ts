import type { GenerationType } from '@gen/contracts';
import { AudioEngine } from './audio.engine';
import type { Engine, BufferedOutput, EngineRequest } from '../ports/engine';
import { ImageEngine } from './image.engine';
import { MeshEngine } from './mesh.engine';
import { VideoEngine } from './video.engine';

/** The smallest valid asset of each type, made once by the built-in engines. */
const TINY: Record<GenerationType, { engine: { generate(request: EngineRequest): Promise<BufferedOutput[]> }; params: Record<string, unknown> }> = {
  TEXT_TO_IMAGE: { engine: new ImageEngine(), params: { width: 64, height: 64 } },
  TEXT_TO_VIDEO: { engine: new VideoEngine(), params: { width: 32, height: 32, durationSeconds: 0.5, fps: 2 } },
  TEXT_TO_AUDIO: { engine: new AudioEngine(), params: { sampleRate: 8000, durationSeconds: 0.1 } },
  TEXT_TO_3D: { engine: new MeshEngine(), params: {} },
};

/**
 * An engine that answers at once with a fixed, tiny but valid asset of the job's type, whatever the
 * prompt. For benchmarks and smoke tests of a deployment (what is measured is the service around
 * the engine, not the engine); bind a model to it with MODEL_ENGINES (docs/operations/providers.md).
 */
export class InstantEngine implements Engine {
  readonly name = 'instant';
  private readonly assets = new Map<GenerationType, Promise<BufferedOutput[]>>();

  async generate(request: EngineRequest): Promise<BufferedOutput[]> {
    request.signal.throwIfAborted();
    let asset = this.assets.get(request.type);
    if (!asset) {
      const { engine, params } = TINY[request.type];
      asset = engine.generate({ ...request, prompt: 'instant', seed: 1, params, signal: new AbortController().signal });
      this.assets.set(request.type, asset);
      asset.catch(() => this.assets.delete(request.type));
    }
    return asset;
  }
}
