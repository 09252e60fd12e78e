import { ArrayBufferTarget, Muxer } from 'mp4-muxer';
import type { EncodedPicture } from './h264-pcm-encoder';

/**
 * Wraps mp4-muxer for one H.264 track with constant frame rate. The first sample carries the
 * decoder config (codec string + avcC record); timestamps are exact multiples of 1/fps with the
 * track timescale set to fps. mp4-muxer stamps the wall clock into mvhd/tkhd/mdhd, which would
 * make bytes differ between runs, so `finish()` zeroes those creation/modification times.
 */

export interface AvcTrackConfig {
  width: number;
  height: number;
  /** Integer frames per second (mp4-muxer requires an integer frame rate). */
  fps: number;
  /** RFC 6381 codec string, e.g. `avc1.42C015`. */
  codec: string;
  codedWidth: number;
  codedHeight: number;
  /** AVCDecoderConfigurationRecord. */
  description: Uint8Array;
}

export class AvcMp4Writer {
  private readonly muxer: Muxer<ArrayBufferTarget>;
  private frames = 0;

  constructor(private readonly config: AvcTrackConfig) {
    this.muxer = new Muxer({
      target: new ArrayBufferTarget(),
      video: { codec: 'avc', width: config.width, height: config.height, frameRate: config.fps },
      fastStart: 'in-memory',
    });
  }

  addPicture(picture: EncodedPicture): void {
    const { fps } = this.config;
    const timestamp = Math.round((this.frames * 1e6) / fps);
    const duration = Math.round(((this.frames + 1) * 1e6) / fps) - timestamp;
    const meta =
      this.frames === 0
        ? {
            decoderConfig: {
              codec: this.config.codec,
              codedWidth: this.config.codedWidth,
              codedHeight: this.config.codedHeight,
              description: this.config.description,
            },
          }
        : undefined;
    this.muxer.addVideoChunkRaw(picture.data, picture.key ? 'key' : 'delta', timestamp, duration, meta);
    this.frames++;
  }

  finish(): Buffer {
    this.muxer.finalize();
    const file = Buffer.from(this.muxer.target.buffer);
    zeroMp4Timestamps(file);
    return file;
  }
}

/** Zeroes creation/modification times in moov/mvhd, trak/tkhd and trak/mdia/mdhd, in place. */
export function zeroMp4Timestamps(file: Buffer): void {
  const visit = (start: number, end: number): void => {
    let pos = start;
    while (pos + 8 <= end) {
      let size = file.readUInt32BE(pos);
      const type = file.toString('latin1', pos + 4, pos + 8);
      let header = 8;
      if (size === 1) {
        size = Number(file.readBigUInt64BE(pos + 8));
        header = 16;
      } else if (size === 0) {
        size = end - pos;
      }
      if (size < header || pos + size > end) return; // malformed: leave the rest alone
      if (type === 'moov' || type === 'trak' || type === 'mdia') {
        visit(pos + header, pos + size);
      } else if (type === 'mvhd' || type === 'tkhd' || type === 'mdhd') {
        const version = file.readUInt8(pos + header);
        const width = version === 1 ? 8 : 4;
        file.fill(0, pos + header + 4, pos + header + 4 + 2 * width);
      }
      pos += size;
    }
  };
  visit(0, file.length);
}
