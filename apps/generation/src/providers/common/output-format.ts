import type { GenerationType } from '@gen/contracts';
import { OUTPUT_FORMATS, OutputFormat, sniffFormat } from '@gen/storage';

export type { OutputFormat } from '@gen/storage';
export { sniffFormat } from '@gen/storage';

const { png: PNG, jpg: JPEG, webp: WEBP, mp4: MP4, webm: WEBM, wav: WAV, mp3: MP3, glb: GLB } = OUTPUT_FORMATS;

/** What each generation type may produce. Anything else from an upstream is refused. */
export const FORMATS_BY_TYPE: Record<GenerationType, readonly OutputFormat[]> = {
  TEXT_TO_IMAGE: [PNG, JPEG, WEBP],
  TEXT_TO_VIDEO: [MP4, WEBM],
  TEXT_TO_AUDIO: [WAV, MP3],
  TEXT_TO_3D: [GLB],
};

/** The format to store the output as, or null when the bytes are not an asset of the job's type. */
export function outputFormatFor(type: GenerationType, data: Buffer): OutputFormat | null {
  const format = sniffFormat(data);
  return format && FORMATS_BY_TYPE[type].includes(format) ? format : null;
}
