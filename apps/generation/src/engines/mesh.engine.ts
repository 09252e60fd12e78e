import type { Engine, BufferedOutput, EngineRequest } from '../ports/engine';
import { beginGeneration } from './engine-runtime';
import { buildStarPrism, createPromptRng, encodeMeshGlb } from '@gen/media-synth';

/**
 * Built-in offline 3D engine: a GLB containing a tapered star/polygon prism whose point count,
 * proportions and PBR material come from (prompt, seed). Params: `latencyMs` only.
 */
export class MeshEngine implements Engine {
  readonly name = 'mesh';

  async generate(request: EngineRequest): Promise<BufferedOutput[]> {
    await beginGeneration(request);
    const rng = createPromptRng(request.prompt, request.seed, 'mesh');
    const geometry = buildStarPrism({
      points: rng.int(3, 9),
      innerRatio: rng.range(0.35, 1),
      radius: 1,
      height: rng.range(0.4, 1.8),
      taper: rng.range(0.3, 1),
    });
    const [r, g, b] = rng.color();
    const data = encodeMeshGlb(
      geometry,
      {
        name: 'prompt-material',
        baseColorFactor: [round4(r / 255), round4(g / 255), round4(b / 255), 1],
        metallicFactor: round4(rng.range(0, 0.6)),
        roughnessFactor: round4(rng.range(0.25, 0.9)),
      },
      'prompt-shape',
    );
    request.signal.throwIfAborted();
    return [{ data, contentType: 'model/gltf-binary', extension: 'glb' }];
  }
}

/** Keeps material numbers short and stable in the JSON chunk. */
function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
