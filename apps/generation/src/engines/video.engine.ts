import { AvcMp4Writer, createPromptRng, createScene, H264PcmEncoder, renderScene, rgbToYuv420 } from '@gen/media-synth';
import { EngineError, type Engine, type BufferedOutput, type EngineRequest } from '../ports/engine';
import { readNumberParam } from './engine-params';
import { beginGeneration, checkpoint } from './engine-runtime';

/** Uncompressed I_PCM costs ~384 bytes per macroblock per frame; refuse anything bigger. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Built-in offline video engine: an MP4 (H.264, uncompressed I_PCM macroblocks) of the prompt's
 * scene with shapes moving and the background hue drifting.
 * Params: `width` (default 160, 32..640), `height` (default 120, 32..480) — rounded down to even;
 * `durationSeconds` (default 3, 0.5..30); `fps` (integer, default 10, 1..30); `latencyMs`.
 * The defaults give ~0.9 MB.
 */
export class VideoEngine implements Engine {
  readonly name = 'video';

  async generate(request: EngineRequest): Promise<BufferedOutput[]> {
    await beginGeneration(request);
    const { params, signal } = request;
    const width = even(readNumberParam(params, 'width', 160, { min: 32, max: 640, integer: true }));
    const height = even(readNumberParam(params, 'height', 120, { min: 32, max: 480, integer: true }));
    const durationSeconds = readNumberParam(params, 'durationSeconds', 3, { min: 0.5, max: 30 });
    const fps = readNumberParam(params, 'fps', 10, { min: 1, max: 30, integer: true });
    const frameCount = Math.max(1, Math.round(durationSeconds * fps));

    const encoder = new H264PcmEncoder({ width, height, fps, idrInterval: fps });
    const estimatedBytes = frameCount * (encoder.codedWidth * encoder.codedHeight * 1.5 + 64);
    if (estimatedBytes > MAX_OUTPUT_BYTES) {
      throw new EngineError('The requested video is too large; reduce its size, duration or frame rate.');
    }

    const rng = createPromptRng(request.prompt, request.seed, 'video');
    const scene = createScene(rng, rng.int(3, 6));
    const writer = new AvcMp4Writer({
      width,
      height,
      fps,
      codec: encoder.codecString,
      codedWidth: encoder.codedWidth,
      codedHeight: encoder.codedHeight,
      description: encoder.decoderConfigurationRecord(),
    });
    const rgb = new Uint8Array(width * height * 3);
    for (let i = 0; i < frameCount; i++) {
      renderScene(rgb, width, height, 3, scene, i / fps);
      writer.addPicture(encoder.encode(rgbToYuv420(rgb, width, height, encoder.codedWidth, encoder.codedHeight)));
      await checkpoint(signal); // keep long encodes cancellable
    }
    const data = writer.finish();
    return [{ data, contentType: 'video/mp4', extension: 'mp4', width, height, durationS: frameCount / fps }];
  }
}

function even(n: number): number {
  return n - (n % 2);
}
