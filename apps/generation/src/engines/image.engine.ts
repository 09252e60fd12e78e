import { PNG } from 'pngjs';
import type { Engine, BufferedOutput, EngineRequest } from '../ports/engine';
import { readNumberParam } from './engine-params';
import { beginGeneration, checkpoint } from './engine-runtime';
import { createPromptRng, createScene, renderScene } from '@gen/media-synth';

/**
 * Built-in offline image engine: a PNG whose gradient and shapes are derived from (prompt, seed).
 * Params: `width`, `height` (default 512, clamped to 64..2048), `latencyMs`.
 */
export class ImageEngine implements Engine {
  readonly name = 'image';

  async generate(request: EngineRequest): Promise<BufferedOutput[]> {
    await beginGeneration(request);
    const width = readNumberParam(request.params, 'width', 512, { min: 64, max: 2048, integer: true });
    const height = readNumberParam(request.params, 'height', 512, { min: 64, max: 2048, integer: true });

    const rng = createPromptRng(request.prompt, request.seed, 'image');
    const scene = createScene(rng, rng.int(4, 9));
    const png = new PNG({ width, height });
    renderScene(png.data, width, height, 4, scene, 0);
    await checkpoint(request.signal);

    // Alpha is always opaque, so write truecolour (type 2) to keep files smaller. A fixed Sub filter
    // suits gradients and avoids pngjs's try-every-filter pass, which is several times slower.
    const data = PNG.sync.write(png, { colorType: 2, filterType: 1 });
    request.signal.throwIfAborted();
    return [{ data, contentType: 'image/png', extension: 'png', width, height }];
  }
}
