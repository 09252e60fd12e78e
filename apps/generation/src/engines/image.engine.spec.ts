import { PNG } from 'pngjs';
import type { EngineRequest } from '../ports/engine';
import { ImageEngine } from './image.engine';

function request(overrides: Partial<EngineRequest> = {}): EngineRequest {
  return {
    jobId: 'job-1',
    modelId: 'test-image',
    type: 'TEXT_TO_IMAGE',
    prompt: 'a red fox in the snow',
    seed: 42,
    params: {},
    input: {},
    signal: new AbortController().signal,
    upstreamRef: null,
    saveUpstreamRef: () => Promise.resolve(),
    ...overrides,
  };
}

describe('ImageEngine', () => {
  const engine = new ImageEngine();

  it('produces a PNG of the default size that an independent decoder reads', async () => {
    const [out] = await engine.generate(request());
    expect(out.contentType).toBe('image/png');
    expect(out.extension).toBe('png');
    const png = PNG.sync.read(out.data);
    expect(png.width).toBe(512);
    expect(png.height).toBe(512);
    // The picture is not flat: many distinct colours.
    const colours = new Set<number>();
    for (let i = 0; i < png.data.length; i += 4) {
      colours.add((png.data[i]! << 16) | (png.data[i + 1]! << 8) | png.data[i + 2]!);
    }
    expect(colours.size).toBeGreaterThan(100);
  });

  it('honours width/height and clamps them to 64..2048', async () => {
    const sized = PNG.sync.read((await engine.generate(request({ params: { width: 300, height: 120 } })))[0].data);
    expect([sized.width, sized.height]).toEqual([300, 120]);
    const clamped = PNG.sync.read((await engine.generate(request({ params: { width: 1, height: 99999 } })))[0].data);
    expect([clamped.width, clamped.height]).toEqual([64, 2048]);
  });

  it('is deterministic for prompt+seed and varies with prompt and seed', async () => {
    const [a] = await engine.generate(request());
    const [b] = await engine.generate(request());
    expect(a.data.equals(b.data)).toBe(true);
    const [otherPrompt] = await engine.generate(request({ prompt: 'a blue whale' }));
    const [otherSeed] = await engine.generate(request({ seed: 43 }));
    expect(a.data.equals(otherPrompt.data)).toBe(false);
    expect(a.data.equals(otherSeed.data)).toBe(false);
  });

  it('rejects when aborted before or during simulated latency', async () => {
    const pre = new AbortController();
    pre.abort();
    await expect(engine.generate(request({ signal: pre.signal }))).rejects.toMatchObject({ name: 'AbortError' });

    const during = new AbortController();
    const started = Date.now();
    const pending = engine.generate(request({ signal: during.signal, params: { latencyMs: 10_000 } }));
    setTimeout(() => during.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('waits for params.latencyMs before producing output', async () => {
    const started = Date.now();
    await engine.generate(request({ params: { latencyMs: 120, width: 64, height: 64 } }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});
