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

/**
 * Streams `source` into a new object, its format recognised from its first bytes (never a sender's
 * claim), counting as it goes: only the first bytes and the part in flight are in memory, and a
 * source longer than `maxBytes` is cut off there (the rest is never read) with nothing kept.
 */
export async function putSniffed(storage: OutputStorage, source: AsyncIterable<Uint8Array>, rules: SniffedWrite): Promise<SniffedObject> {
  const iterator = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  try {
    while (headBytes < SNIFF_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      head.push(chunk);
      headBytes += chunk.length;
    }
  } catch (error) {
    await iterator.return?.();
    throw error;
  }
  const first = Buffer.concat(head, headBytes);
  const format = sniffFormat(first);
  if (!format || !rules.accept(format)) {
    await iterator.return?.();
    throw new UnacceptedFormatError(format, headBytes === 0);
  }
  let bytes = 0;
  const counted = async function* (): AsyncGenerator<Buffer> {
    const take = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > rules.maxBytes) throw new ObjectTooLargeError(rules.maxBytes);
      return chunk;
    };
    yield take(first);
    if (ended) return;
    try {
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
