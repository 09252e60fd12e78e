/** Every extension an output may be stored with. */
export const OUTPUT_EXTENSIONS = ['png', 'jpg', 'webp', 'mp4', 'webm', 'wav', 'mp3', 'glb'] as const;
export type OutputExtension = (typeof OUTPUT_EXTENSIONS)[number];

/** A stored output format: what it is served as, and its file extension. */
export interface OutputFormat {
  contentType: string;
  extension: OutputExtension;
}

/**
 * Every format an output may be stored in, by extension: what engines produce and what provider
 * adapters accept (apps/generation/src/providers/common/output-format.ts sniffs bytes into these).
 * The content host serves a file with the type its extension names here.
 */
export const OUTPUT_FORMATS: Record<OutputExtension, OutputFormat> = {
  png: { contentType: 'image/png', extension: 'png' },
  jpg: { contentType: 'image/jpeg', extension: 'jpg' },
  webp: { contentType: 'image/webp', extension: 'webp' },
  mp4: { contentType: 'video/mp4', extension: 'mp4' },
  webm: { contentType: 'video/webm', extension: 'webm' },
  wav: { contentType: 'audio/wav', extension: 'wav' },
  mp3: { contentType: 'audio/mpeg', extension: 'mp3' },
  glb: { contentType: 'model/gltf-binary', extension: 'glb' },
};

/** Bytes enough to recognise every format (sniffFormat reads at most the first 12). */
export const SNIFF_BYTES = 16;

const ascii = (data: Buffer, offset: number, text: string) =>
  data.length >= offset + text.length && data.toString('latin1', offset, offset + text.length) === text;

/**
 * The format of the bytes, recognised by their signature (never by what a sender claims: a
 * `200 text/html` error page or a truncated file must not be stored and served as an asset).
 */
export function sniffFormat(data: Buffer): OutputFormat | null {
  const { png, jpg, webp, wav, mp4, webm, mp3, glb } = OUTPUT_FORMATS;
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return png;
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return jpg;
  if (ascii(data, 0, 'RIFF') && ascii(data, 8, 'WEBP')) return webp;
  if (ascii(data, 0, 'RIFF') && ascii(data, 8, 'WAVE')) return wav;
  if (ascii(data, 4, 'ftyp')) return mp4;
  if (data.length >= 4 && data.readUInt32BE(0) === 0x1a45dfa3) return webm;
  if (ascii(data, 0, 'ID3') || (data.length >= 2 && data[0] === 0xff && (data[1] & 0xe0) === 0xe0)) return mp3;
  if (ascii(data, 0, 'glTF') && data.length >= 12 && data.readUInt32LE(4) === 2) return glb;
  return null;
}

/** The format a media type names (`image/png; x=y` too), or null for one the storage does not keep. */
export function formatOfContentType(contentType: string): OutputFormat | null {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return Object.values(OUTPUT_FORMATS).find((format) => format.contentType === type) ?? null;
}
