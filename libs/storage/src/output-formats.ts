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
 * adapters accept (apps/generation/src/providers/shared/output-format.ts sniffs bytes into these).
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
