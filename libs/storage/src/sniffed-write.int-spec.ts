import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDirectoryStorage } from './output-storage';
import { ObjectTooLargeError, putSniffed, UnacceptedFormatError, WHOLE_OBJECT_BYTES } from './sniffed-write';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const acceptPng = { maxBytes: 1024 * 1024, accept: (format: { extension: string } | null) => format?.extension === 'png' };

/** A PNG-looking object of `size` bytes (the signature, then counting bytes). */
function png(size: number): Buffer {
  const data = Buffer.alloc(size);
  PNG_SIGNATURE.copy(data);
  for (let i = PNG_SIGNATURE.length; i < size; i++) data[i] = i % 251;
  return data;
}

/** `data` as a source of `chunk`-byte pieces that records how far it was read and whether it was stopped. */
function source(data: Buffer, chunk: number) {
  const seen = { read: 0, stopped: false };
  const iterable: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        if (seen.read >= data.length) return { done: true, value: undefined };
        const piece = data.subarray(seen.read, seen.read + chunk);
        seen.read += piece.length;
        return { done: false, value: piece };
      },
      return: async () => {
        seen.stopped = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return { iterable, seen };
}

/** Every file under the storage's root (shard folders included), by relative path. */
function files(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(root.length + 1));
}

describe('putSniffed (a local folder)', () => {
  let root: string;
  let storage: LocalDirectoryStorage;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'sniffed-'));
    storage = new LocalDirectoryStorage(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('an object that ends within WHOLE_OBJECT_BYTES is put in one write: its bytes, its format, no partial file', async () => {
    const data = png(3_000);
    const put = jest.spyOn(storage, 'put');
    const write = jest.spyOn(storage, 'write');
    const { iterable } = source(data, 1_000);
    const stored = await putSniffed(storage, iterable, acceptPng);
    expect(stored).toMatchObject({ bytes: 3_000, format: { extension: 'png', contentType: 'image/png' } });
    expect(put).toHaveBeenCalledTimes(1);
    expect(write).not.toHaveBeenCalled();
    expect(files(root)).toEqual([stored.key]);
    expect(readFileSync(join(root, stored.key)).equals(data)).toBe(true);
  });

  it('a larger object is streamed: the bytes read ahead first, then the rest, whole', async () => {
    const data = png(WHOLE_OBJECT_BYTES * 3 + 123);
    const write = jest.spyOn(storage, 'write');
    const { iterable, seen } = source(data, 16 * 1024);
    const stored = await putSniffed(storage, iterable, acceptPng);
    expect(write).toHaveBeenCalledTimes(1);
    expect(stored.bytes).toBe(data.length);
    expect(seen.read).toBe(data.length);
    expect(files(root)).toEqual([stored.key]);
    expect(readFileSync(join(root, stored.key)).equals(data)).toBe(true);
  });

  it('too large within the read-ahead: refused before any write, the source stopped, nothing kept', async () => {
    const { iterable, seen } = source(png(WHOLE_OBJECT_BYTES * 2), 1_000);
    await expect(putSniffed(storage, iterable, { ...acceptPng, maxBytes: 2_500 })).rejects.toEqual(new ObjectTooLargeError(2_500));
    expect(seen.read).toBeLessThanOrEqual(3_000);
    expect(seen.stopped).toBe(true);
    expect(files(root)).toEqual([]);
  });

  it('too large past the read-ahead: the streamed write is abandoned, the source stopped, nothing kept', async () => {
    const maxBytes = WHOLE_OBJECT_BYTES * 2;
    const { iterable, seen } = source(png(WHOLE_OBJECT_BYTES * 4), 16 * 1024);
    await expect(putSniffed(storage, iterable, { ...acceptPng, maxBytes })).rejects.toEqual(new ObjectTooLargeError(maxBytes));
    expect(seen.read).toBeLessThan(WHOLE_OBJECT_BYTES * 4);
    expect(seen.stopped).toBe(true);
    expect(files(root)).toEqual([]);
  });

  it('exactly maxBytes is kept, whole or streamed', async () => {
    for (const size of [2_000, WHOLE_OBJECT_BYTES + 1]) {
      const { iterable } = source(png(size), 1_000);
      await expect(putSniffed(storage, iterable, { ...acceptPng, maxBytes: size })).resolves.toMatchObject({ bytes: size });
    }
    expect(files(root)).toHaveLength(2);
  });

  it('a format not accepted, or no bytes at all: refused after the first bytes, nothing written', async () => {
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(5_000)]);
    const refused = source(jpeg, 1_000);
    await expect(putSniffed(storage, refused.iterable, acceptPng)).rejects.toMatchObject({ found: { extension: 'jpg' }, empty: false });
    expect(refused.seen).toEqual({ read: 1_000, stopped: true });
    const empty = source(Buffer.alloc(0), 1_000);
    const error = await putSniffed(storage, empty.iterable, acceptPng).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnacceptedFormatError);
    expect(error).toMatchObject({ found: null, empty: true });
    expect(files(root)).toEqual([]);
  });
});
