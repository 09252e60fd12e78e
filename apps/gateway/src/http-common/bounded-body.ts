/** A raw body longer than the route takes (the caller turns it into its own `413`). */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The body is larger than ${maxBytes} bytes.`);
  }
}

/**
 * Reads a raw body into memory, refusing it as soon as it passes `maxBytes` (the rest is not read:
 * the answer closes the connection, http-common/raw-body.ts). For bodies that are parsed whole (a
 * batch's JSONL file), not for media, which are streamed to the storage.
 */
export async function readBounded(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    length += chunk.length;
    if (length > maxBytes) throw new BodyTooLargeError(maxBytes);
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, length);
}

/** The media types a JSONL file may be sent as. */
export const JSONL_MEDIA_TYPES = ['application/jsonl', 'application/x-ndjson'] as const;

/** True when a Content-Type names JSONL (parameters such as `charset=utf-8` aside). */
export function isJsonlContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const essence = contentType.split(';')[0].trim().toLowerCase();
  return (JSONL_MEDIA_TYPES as readonly string[]).includes(essence);
}
