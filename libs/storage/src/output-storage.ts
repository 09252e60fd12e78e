import { randomBytes } from 'node:crypto';
import { createReadStream, ReadStream, writeFile as writeFileCallback } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { OUTPUT_EXTENSIONS, OUTPUT_FORMATS, OutputExtension } from './output-formats';

/** An object as the content host serves it. */
export interface StoredObject {
  size: number;
  contentType: string;
  open(): ReadStream;
}

/**
 * Where finished assets go, and where the content host reads them. The local driver is the default
 * (generation writes, the gateway serves the same folder: shared in Kubernetes); an object-store
 * driver fits the same shape.
 */
export abstract class OutputStorage {
  /** Stores the bytes and returns the object key (relative path under the content host). */
  abstract put(data: Buffer, extension: OutputExtension): Promise<string>;
  /** Removes an object (its job could not be finished by us, or its retention ended). Missing is fine. */
  abstract delete(key: string): Promise<void>;
  /** The object of a key, or null for anything that is not one (never touches the disk for a malformed key). */
  abstract find(key: string): Promise<StoredObject | null>;
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

/** Creates `path` with `data`; fails (EEXIST) rather than replace a file. */
function writeNew(path: string, data: Buffer): Promise<void> {
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
    const folder = dirname(path);
    if (!this.folders.has(folder)) {
      await mkdir(folder, { recursive: true });
      this.folders.add(folder);
    }
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

  async delete(key: string): Promise<void> {
    if (!isObjectKey(key)) throw new Error('not an object key of this storage');
    await rm(join(this.root, key), { force: true });
  }

  async find(key: string): Promise<StoredObject | null> {
    if (!isObjectKey(key)) return null;
    const path = join(this.root, key);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return null;
    const extension = key.slice(key.lastIndexOf('.') + 1) as OutputExtension;
    return { size: info.size, contentType: OUTPUT_FORMATS[extension].contentType, open: () => createReadStream(path) };
  }
}
