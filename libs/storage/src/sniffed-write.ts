import { OutputFormat, SNIFF_BYTES, sniffFormat } from './output-formats';
import { newObjectKey, OutputStorage } from './output-storage';

/** A streamed object went past its size cap: the write was abandoned and nothing was kept. */
export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

/** The first bytes were not of a format the caller accepts: nothing was written. */
export class UnacceptedFormatError extends Error {
  constructor(
    /** What the first bytes are, or null when they are no format the storage knows. */
    readonly found: OutputFormat | null,
    /** There were no bytes at all. */
    readonly empty = false,
  ) {
    super(empty ? 'no bytes' : found ? `bytes are ${found.contentType}, which is not accepted here` : 'bytes are of no format the storage keeps');
    this.name = 'UnacceptedFormatError';
  }
}

export interface SniffedWrite {
  /** Largest object kept; one byte more and the write fails with ObjectTooLargeError (nothing kept). */
  maxBytes: number;
  /** Whether the format the first bytes show is wanted; false fails with UnacceptedFormatError before any write. */
  accept(format: OutputFormat | null): boolean;
}

export interface SniffedObject {
  key: string;
  bytes: number;
  format: OutputFormat;
}

/** An object that arrives whole within this many bytes is written in one piece: no stream, no rename. */
export const WHOLE_OBJECT_BYTES = 64 * 1024;

/** Bytes read ahead of a write, and whether the source ended within them. */
interface Prefix {
  chunks: Buffer[];
  bytes: number;
  ended: boolean;
}

/** Reads from `iterator` into `prefix` until it holds at least `limit` bytes or the source ends. */
async function readAhead(iterator: AsyncIterator<Uint8Array>, prefix: Prefix, limit: number): Promise<void> {
  while (!prefix.ended && prefix.bytes < limit) {
    const next = await iterator.next();
    if (next.done) {
      prefix.ended = true;
      return;
    }
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    prefix.chunks.push(chunk);
    prefix.bytes += chunk.length;
  }
}

/** The prefix's bytes in one buffer: its only chunk as it is (most outputs arrive in one), else a copy. */
function joined(prefix: Prefix): Buffer {
  return prefix.chunks.length === 1 ? prefix.chunks[0] : Buffer.concat(prefix.chunks, prefix.bytes);
}

/**
 * Streams `source` into a new object, its format recognised from its first bytes (never a sender's
 * claim), counting as it goes: only the first bytes and the part in flight are in memory, and a
 * source longer than `maxBytes` is cut off there (the rest is never read) with nothing kept. A
 * source that ends within WHOLE_OBJECT_BYTES (most images, and every status-sized output) is put in
 * one write: the stream and rename of a streamed write cost more CPU than the bytes themselves.
 */
export async function putSniffed(storage: OutputStorage, source: AsyncIterable<Uint8Array>, rules: SniffedWrite): Promise<SniffedObject> {
  const iterator = source[Symbol.asyncIterator]();
  const prefix: Prefix = { chunks: [], bytes: 0, ended: false };
  let format: OutputFormat | null;
  try {
    await readAhead(iterator, prefix, SNIFF_BYTES);
    format = sniffFormat(joined(prefix));
    if (!format || !rules.accept(format)) throw new UnacceptedFormatError(format, prefix.bytes === 0);
    await readAhead(iterator, prefix, Math.min(WHOLE_OBJECT_BYTES, rules.maxBytes + 1));
    if (prefix.bytes > rules.maxBytes) throw new ObjectTooLargeError(rules.maxBytes);
  } catch (error) {
    await iterator.return?.();
    throw error;
  }
  if (prefix.ended) {
    const key = await storage.put(joined(prefix), format.extension);
    return { key, bytes: prefix.bytes, format };
  }
  let bytes = 0;
  const counted = async function* (): AsyncGenerator<Buffer> {
    const take = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > rules.maxBytes) throw new ObjectTooLargeError(rules.maxBytes);
      return chunk;
    };
    try {
      for (const chunk of prefix.chunks) yield take(chunk);
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        yield take(Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength));
      }
    } finally {
      // Stops the source (an HTTP body, an upload) when the write ends early: too large, or failed.
      await iterator.return?.();
    }
  };
  const key = newObjectKey(format.extension);
  await storage.write(key, counted());
  return { key, bytes, format };
}
