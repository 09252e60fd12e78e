import type { GenerationType } from '@gen/contracts';
import { OUTPUT_FORMATS, OutputFormat } from '@gen/storage';

export type { OutputFormat } from '@gen/storage';

const { png: PNG, jpg: JPEG, webp: WEBP, mp4: MP4, webm: WEBM, wav: WAV, mp3: MP3, glb: GLB } = OUTPUT_FORMATS;

/** What each generation type may produce. Anything else from an upstream is refused. */
export const FORMATS_BY_TYPE: Record<GenerationType, readonly OutputFormat[]> = {
  TEXT_TO_IMAGE: [PNG, JPEG, WEBP],
  TEXT_TO_VIDEO: [MP4, WEBM],
  TEXT_TO_AUDIO: [WAV, MP3],
  TEXT_TO_3D: [GLB],
};

const ascii = (data: Buffer, offset: number, text: string) =>
  data.length >= offset + text.length && data.toString('latin1', offset, offset + text.length) === text;

/**
 * The format of the bytes, recognised by their signature (never by what the upstream claims: a
 * `200 text/html` error page or a truncated file must not be stored and served as an asset).
 */
export function sniffFormat(data: Buffer): OutputFormat | null {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return PNG;
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return JPEG;
  if (ascii(data, 0, 'RIFF') && ascii(data, 8, 'WEBP')) return WEBP;
  if (ascii(data, 0, 'RIFF') && ascii(data, 8, 'WAVE')) return WAV;
  if (ascii(data, 4, 'ftyp')) return MP4;
  if (data.length >= 4 && data.readUInt32BE(0) === 0x1a45dfa3) return WEBM;
  if (ascii(data, 0, 'ID3') || (data.length >= 2 && data[0] === 0xff && (data[1] & 0xe0) === 0xe0)) return MP3;
  if (ascii(data, 0, 'glTF') && data.length >= 12 && data.readUInt32LE(4) === 2) return GLB;
  return null;
}

/** The format to store the output as, or null when the bytes are not an asset of the job's type. */
export function outputFormatFor(type: GenerationType, data: Buffer): OutputFormat | null {
  const format = sniffFormat(data);
  return format && FORMATS_BY_TYPE[type].includes(format) ? format : null;
}
