import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, writeFile as writeFileCallback, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OUTPUT_EXTENSIONS, OUTPUT_FORMATS, OutputExtension } from './output-formats';

/** Bytes `start` to `end` of an object, both included (as an HTTP Range names them). */
export interface ByteRange {
  start: number;
  end: number;
}

/** An object as the content host serves it. */
export interface StoredObject {
  size: number;
  contentType: string;
  /** Reads the object, or only the bytes of `range` (within the size). Errors arrive on the stream. */
  open(range?: ByteRange): Readable;
}

/** What a streamed write takes: a stream, any async iterable of bytes, or bytes already in memory. */
export type ObjectSource = Buffer | Readable | AsyncIterable<Uint8Array>;

/**
 * Where finished assets (and uploaded inputs) go, and where the content host reads them. Two drivers:
 * the local folder (the default; in a cluster generation and the gateway would share it) and an
 * S3-compatible bucket (S3ObjectStorage, STORAGE_DRIVER=s3), which every replica reaches on its own.
 * createOutputStorage() picks one from the settings; nothing else names a driver.
 */
export abstract class OutputStorage {
  /** Stores the bytes and returns the object key (relative path under the content host). */
  abstract put(data: Buffer, extension: OutputExtension): Promise<string>;
  /** Removes an object (its job could not be finished by us, or its retention ended). Missing is fine. */
  abstract delete(key: string): Promise<void>;
  /** The object of a key, or null for anything that is not one (never touches the disk for a malformed key). */
  abstract find(key: string): Promise<StoredObject | null>;
  /**
   * Stores `source` under `key` (one newObjectKey made), streamed: never the whole object in memory.
   * Idempotent per key: writing a key again (a retry) replaces the object whole, and no reader ever
   * sees part of one (a local file appears by rename, an S3 object when its upload completes).
   */
  abstract write(key: string, source: ObjectSource): Promise<void>;

  /** Streams `source` to a new object and returns its key (put() for data that is not all in memory). */
  async putStream(source: ObjectSource, extension: OutputExtension): Promise<string> {
    const key = newObjectKey(extension);
    await this.write(key, source);
    return key;
  }

  /** Removes several objects (one batch request where the driver has one). Missing ones are fine. */
  async deleteMany(keys: readonly string[]): Promise<void> {
    keys.forEach(assertObjectKey);
    for (const key of keys) await this.delete(key);
  }

  /**
   * A URL that reads the object straight from the store for `expiresInSeconds` (a presigned GET), or
   * null when this driver has none (the local folder: the gateway serves it).
   */
  signedUrl(key: string, expiresInSeconds: number): Promise<string | null> {
    void key;
    void expiresInSeconds;
    return Promise.resolve(null);
  }
}

/** Keys are `<2 hex>/<32 hex>.<extension>`: 128 random bits, sharded by the first byte. */
const KEY_PATTERN = new RegExp(`^[0-9a-f]{2}/[0-9a-f]{32}\\.(${OUTPUT_EXTENSIONS.join("|")})$`);

/** Whether a string is an object key of this storage (the content host refuses anything else at once). */
export function isObjectKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** An unguessable key: 128 random bits, sharded by the first byte. */
export function newObjectKey(extension: OutputExtension): string {
  const token = randomBytes(16).toString('hex');
  return `${token.slice(0, 2)}/${token}.${extension}`;
}

/** The format a key's extension names (the key must be one: isObjectKey). */
export function contentTypeOfKey(key: string): string {
  return OUTPUT_FORMATS[key.slice(key.lastIndexOf('.') + 1) as OutputExtension].contentType;
}

/** Refuses what is not a key of this storage, before any I/O. */
export function assertObjectKey(key: string): void {
  if (!isObjectKey(key)) throw new Error('not an object key of this storage');
}

/**
 * Objects up to this size are written on the event loop. A write through libuv's thread pool is three
 * hand-offs (open, write, close), and on this project's machines each cost more CPU than a small file's
 * whole write: a standalone sync generation with a 3 KB output took 619 µs of CPU written in the pool,
 * 498 on the loop (bench/HISTORY.md, issue 34). Larger objects, whose write would hold the loop, go to
 * the pool. This driver is the standalone and single-volume one; production stores in S3.
 */
export const WRITTEN_ON_LOOP_BYTES = 64 * 1024;

/** Creates `path` with `data`; fails (EEXIST) rather than replace a file. */
async function writeNew(path: string, data: Buffer): Promise<void> {
  if (data.length <= WRITTEN_ON_LOOP_BYTES) return writeFileSync(path, data, { flag: 'wx' });
  return new Promise((done, fail) => writeFileCallback(path, data, { flag: 'wx' }, (error) => (error ? fail(error) : done())));
}

export class LocalDirectoryStorage extends OutputStorage {
  private readonly root: string;
  /** Shard folders known to exist (at most 256): no mkdir per object. */
  private readonly folders = new Set<string>();

  constructor(root: string) {
    super();
    this.root = resolve(root);
  }

  async put(data: Buffer, extension: OutputExtension): Promise<string> {
    const key = newObjectKey(extension);
    const path = join(this.root, key);
    const folder = await this.folderOf(path);
    // Straight to the final name, and only if it is new ('wx'): no reader can see half a file, because
    // the key is unknown until put() returns and it is published only by the job's finish, after the
    // write completed. A crash mid-write leaves a file under a key nothing refers to (as a crash
    // after the write but before the finish does). The callback API: no FileHandle per write.
    try {
      await writeNew(path, data);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(folder, { recursive: true }); // the folder was removed under us
      await writeNew(path, data);
    }
    return key;
  }

  async write(key: string, source: ObjectSource): Promise<void> {
    assertObjectKey(key);
    const path = join(this.root, key);
    const folder = await this.folderOf(path);
    // A key may be written again (a retry), and a reader may hold it meanwhile: the bytes go to a
    // file of their own and replace the object by rename, whole or not at all.
    const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
    const input = Buffer.isBuffer(source) ? Readable.from([source]) : source;
    try {
      await pipeline(input, createWriteStream(partial, { flags: 'wx' })).catch(async (error: NodeJS.ErrnoException) => {
        // The folder was removed under us (folderOf remembers it): made again; a buffer is written
        // again, a stream (consumed) fails this write only.
        if (error.code !== 'ENOENT') throw error;
        this.folders.delete(folder);
        await this.folderOf(path);
        if (!Buffer.isBuffer(source)) throw error;
        await pipeline(Readable.from([source]), createWriteStream(partial, { flags: 'wx' }));
      });
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    await rm(join(this.root, key), { force: true });
  }

  async find(key: string): Promise<StoredObject | null> {
    if (!isObjectKey(key)) return null;
    const path = join(this.root, key);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return null;
    return {
      size: info.size,
      contentType: contentTypeOfKey(key),
      open: (range) => createReadStream(path, range ? { start: range.start, end: range.end } : undefined),
    };
  }

  private async folderOf(path: string): Promise<string> {
    const folder = dirname(path);
    if (!this.folders.has(folder)) {
      await mkdir(folder, { recursive: true });
      this.folders.add(folder);
    }
    return folder;
  }
}
