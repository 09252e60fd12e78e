import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AvcMp4Writer } from './avc-mp4-writer';
import { buildNalUnit } from './bit-writer';
import { H264PcmEncoder, type YuvFrame } from './h264-pcm-encoder';

const run = promisify(execFile);

describe('buildNalUnit', () => {
  it('inserts emulation-prevention bytes after two zeros followed by 0..3', () => {
    const nal = buildNalUnit(3, 5, Uint8Array.from([0, 0, 0, 0, 0, 1, 0, 0, 4, 0, 0, 3]));
    expect([...nal]).toEqual([0x65, 0, 0, 3, 0, 0, 3, 0, 1, 0, 0, 4, 0, 0, 3, 3]);
  });
});

describe('H264PcmEncoder', () => {
  it('describes itself as Constrained Baseline with a matching avcC record', () => {
    const encoder = new H264PcmEncoder({ width: 160, height: 120, fps: 10 });
    expect([encoder.codedWidth, encoder.codedHeight]).toEqual([160, 128]);
    expect(encoder.codecString).toMatch(/^avc1\.42C0[0-9A-F]{2}$/);
    const avcc = encoder.decoderConfigurationRecord();
    expect([...avcc.subarray(0, 6)]).toEqual([1, 66, 0xc0, encoder.levelIdc, 0xff, 0xe1]);
  });

  it('round-trips arbitrary samples (including 0x00 runs) losslessly through ffmpeg', async () => {
    const width = 36; // not a multiple of 16: exercises cropping
    const height = 20;
    const fps = 4;
    const encoder = new H264PcmEncoder({ width, height, fps, idrInterval: 2 });
    const cw = encoder.codedWidth;
    const ch = encoder.codedHeight;
    const frames: YuvFrame[] = [];
    let state = 12345;
    const rand = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 24;
    for (let f = 0; f < 5; f++) {
      const y = Uint8Array.from({ length: cw * ch }, (_, i) => (i % 7 === 0 ? 0 : rand()));
      const u = Uint8Array.from({ length: (cw * ch) / 4 }, () => rand());
      const v = Uint8Array.from({ length: (cw * ch) / 4 }, (_, i) => (i < 8 ? 0 : rand()));
      frames.push({ y, u, v });
    }
    const writer = new AvcMp4Writer({
      width,
      height,
      fps,
      codec: encoder.codecString,
      codedWidth: cw,
      codedHeight: ch,
      description: encoder.decoderConfigurationRecord(),
    });
    const keys: boolean[] = [];
    for (const frame of frames) {
      const picture = encoder.encode(frame);
      keys.push(picture.key);
      writer.addPicture(picture);
    }
    expect(keys).toEqual([true, false, true, false, true]);

    const dir = await mkdtemp(join(tmpdir(), 'h264-pcm-'));
    try {
      const file = join(dir, 'pcm.mp4');
      await writeFile(file, writer.finish());
      const { stdout, stderr } = await run(
        'ffmpeg',
        ['-nostdin', '-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-'],
        { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
      );
      expect(stderr.toString()).toBe('');
      // Expected output: each plane cropped to the display size, frame after frame.
      const expected: number[] = [];
      const crop = (plane: Uint8Array, stride: number, w: number, h: number): void => {
        for (let row = 0; row < h; row++) expected.push(...plane.subarray(row * stride, row * stride + w));
      };
      for (const frame of frames) {
        crop(frame.y, cw, width, height);
        crop(frame.u, cw / 2, width / 2, height / 2);
        crop(frame.v, cw / 2, width / 2, height / 2);
      }
      expect(stdout.length).toBe(expected.length);
      expect(Buffer.compare(stdout, Buffer.from(expected))).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
