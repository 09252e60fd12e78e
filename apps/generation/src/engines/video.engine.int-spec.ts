import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { EngineRequest } from '../ports/engine';
import { EngineError } from '../ports/engine';
import { VideoEngine } from './video.engine';

const run = promisify(execFile);

function request(overrides: Partial<EngineRequest> = {}): EngineRequest {
  return {
    jobId: 'job-1',
    modelId: 'test-video',
    type: 'TEXT_TO_VIDEO',
    prompt: 'a paper boat drifting on a pond',
    seed: 7,
    params: {},
    input: {},
    signal: new AbortController().signal,
    upstreamRef: null,
    saveUpstreamRef: () => Promise.resolve(),
    ...overrides,
  };
}

interface ProbeStream {
  codec_name: string;
  profile: string;
  width: number;
  height: number;
  nb_frames: string;
  duration: string;
  pix_fmt: string;
}

describe('VideoEngine (checked with ffprobe/ffmpeg)', () => {
  const engine = new VideoEngine();
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'video-engine-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function probeAndDecode(data: Buffer, name: string): Promise<{ stream: ProbeStream; formatDuration: number }> {
    const file = join(dir, name);
    await writeFile(file, data);
    const probe = await run('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file]);
    expect(probe.stderr).toBe('');
    const json = JSON.parse(probe.stdout) as { streams: ProbeStream[]; format: { duration: string } };
    expect(json.streams).toHaveLength(1);
    // Decode every frame: execFile rejects on a non-zero exit; any decoder complaint lands in stderr.
    const decode = await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', file, '-f', 'null', '-']);
    expect(decode.stderr).toBe('');
    return { stream: json.streams[0]!, formatDuration: Number(json.format.duration) };
  }

  it('produces a default MP4: H.264 160x120, 3 s at 10 fps, that decodes cleanly', async () => {
    const [out] = await engine.generate(request());
    expect(out.contentType).toBe('video/mp4');
    expect(out.extension).toBe('mp4');
    expect(out.data.length).toBeLessThan(2 * 1024 * 1024);
    const { stream, formatDuration } = await probeAndDecode(out.data, 'default.mp4');
    expect(stream.codec_name).toBe('h264');
    expect(stream.profile).toBe('Constrained Baseline');
    expect(stream.pix_fmt).toBe('yuv420p');
    expect([stream.width, stream.height]).toEqual([160, 120]);
    expect(Number(stream.nb_frames)).toBe(30);
    expect(Math.abs(Number(stream.duration) - 3)).toBeLessThanOrEqual(0.2);
    expect(Math.abs(formatDuration - 3)).toBeLessThanOrEqual(0.2);
  });

  it('honours width/height/fps/durationSeconds, including sizes that need cropping', async () => {
    const [out] = await engine.generate(request({ params: { width: 100, height: 70, fps: 12, durationSeconds: 1.5 } }));
    const { stream } = await probeAndDecode(out.data, 'custom.mp4');
    expect(stream.codec_name).toBe('h264');
    expect([stream.width, stream.height]).toEqual([100, 70]);
    expect(Number(stream.nb_frames)).toBe(18);
    expect(Math.abs(Number(stream.duration) - 1.5)).toBeLessThanOrEqual(0.2);
  });

  it('animates: decoded frames differ over time', async () => {
    const [out] = await engine.generate(request({ params: { durationSeconds: 1, fps: 5, width: 64, height: 48 } }));
    const file = join(dir, 'frames.mp4');
    await writeFile(file, out.data);
    const { stdout } = await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', file, '-f', 'framemd5', '-'], {
      encoding: 'utf8',
    });
    const hashes = stdout
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => line.split(',').pop()!.trim());
    expect(hashes).toHaveLength(5);
    expect(new Set(hashes).size).toBe(5);
  });

  it('is deterministic for prompt+seed and varies with the prompt', async () => {
    const params = { durationSeconds: 1, width: 64, height: 64 };
    // mp4-muxer stamps Date.now() into the movie headers; the engine must neutralise that.
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.UTC(2020, 0, 1));
    const [a] = await engine.generate(request({ params }));
    now.mockReturnValue(Date.UTC(2031, 5, 15));
    const [b] = await engine.generate(request({ params }));
    now.mockRestore();
    expect(a.data.equals(b.data)).toBe(true);
    const [c] = await engine.generate(request({ params, prompt: 'a thunderstorm over mountains' }));
    expect(a.data.equals(c.data)).toBe(false);
  });

  it('refuses requests whose uncompressed output would be too large', async () => {
    await expect(
      engine.generate(request({ params: { width: 640, height: 480, fps: 30, durationSeconds: 30 } })),
    ).rejects.toBeInstanceOf(EngineError);
  });

  it('stops promptly when aborted mid-encode', async () => {
    const controller = new AbortController();
    const pending = engine.generate(
      request({ signal: controller.signal, params: { width: 320, height: 240, fps: 30, durationSeconds: 10 } }),
    );
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
