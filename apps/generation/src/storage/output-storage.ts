import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** Where finished assets go. The local driver is the default; an object-store driver fits the same shape. */
export abstract class OutputStorage {
  /** Stores the bytes and returns the object key (relative path under the content host). */
  abstract put(data: Buffer, extension: string, contentType: string): Promise<string>;
  /** Removes an object that no job refers to (its job could not be finished by us). Missing is fine. */
  abstract delete(key: string): Promise<void>;
}

/** An unguessable key: 128 random bits, sharded by the first byte. */
export function newObjectKey(extension: string): string {
  const token = randomBytes(16).toString('hex');
  return `${token.slice(0, 2)}/${token}.${extension}`;
}

export class LocalDirectoryStorage extends OutputStorage {
  private readonly root: string;
  /** Shard folders known to exist (at most 256): no mkdir per object. */
  private readonly folders = new Set<string>();

  constructor(root: string) {
    super();
    this.root = resolve(root);
  }

  async put(data: Buffer, extension: string): Promise<string> {
    const key = newObjectKey(extension);
    const path = join(this.root, key);
    const folder = dirname(path);
    if (!this.folders.has(folder)) {
      await mkdir(folder, { recursive: true });
      this.folders.add(folder);
    }
    // Write then rename, so a reader never sees half a file.
    const temporary = `${path}.${process.pid}.tmp`;
    try {
      await writeFile(temporary, data);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(folder, { recursive: true }); // the folder was removed under us
      await writeFile(temporary, data);
    }
    await rename(temporary, path);
    return key;
  }

  async delete(key: string): Promise<void> {
    if (!/^[0-9a-f]{2}\/[0-9a-f]{32}\.[a-z0-9]{2,5}$/.test(key)) throw new Error('not an object key of this storage');
    await rm(join(this.root, key), { force: true });
  }
}
