import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObjectKey, LocalDirectoryStorage, newObjectKey } from './output-storage';

describe('LocalDirectoryStorage', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'outputs-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('stores under an unguessable key (128 random bits, sharded) and leaves no temporary file', async () => {
    const storage = new LocalDirectoryStorage(root);
    const key = await storage.put(Buffer.from('png bytes'), 'png');
    expect(key).toMatch(/^([0-9a-f]{2})\/\1[0-9a-f]{30}\.png$/);
    expect(readFileSync(join(root, key), 'utf8')).toBe('png bytes');
    expect(readdirSync(join(root, key.slice(0, 2)))).toEqual([key.slice(3)]);
    const keys = new Set(Array.from({ length: 1000 }, () => newObjectKey('png')));
    expect(keys.size).toBe(1000);
  });

  it('recreates a shard folder removed while running', async () => {
    const storage = new LocalDirectoryStorage(root);
    const first = await storage.put(Buffer.from('a'), 'wav');
    rmSync(root, { recursive: true, force: true });
    // Until a key lands in the same shard again (the folder cache says it exists; it does not any more).
    let key: string;
    do key = await storage.put(Buffer.from('b'), 'wav');
    while (key.slice(0, 2) !== first.slice(0, 2));
    expect(existsSync(join(root, key))).toBe(true);
  });

  it('deletes an object (missing is fine) and refuses anything that is not one of its keys', async () => {
    const storage = new LocalDirectoryStorage(root);
    const key = await storage.put(Buffer.from('x'), 'glb');
    await storage.delete(key);
    expect(existsSync(join(root, key))).toBe(false);
    await expect(storage.delete(key)).resolves.toBeUndefined();
    await expect(storage.delete('../../etc/passwd')).rejects.toThrow('not an object key');
  });

  it('finds an object with its size and the content type of its extension; nothing for a non-key, without touching the disk', async () => {
    const storage = new LocalDirectoryStorage(root);
    const key = await storage.put(Buffer.from('RIFF....WAVE'), 'wav');
    const found = await storage.find(key);
    expect(found).toMatchObject({ size: 12, contentType: 'audio/wav' });
    const chunks: Buffer[] = [];
    for await (const chunk of found!.open()) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('RIFF....WAVE');
    expect(await storage.find(key.replace(/[0-9a-f]{32}/, 'f'.repeat(32)))).toBeNull();
    for (const bad of ['../../etc/passwd', 'ab/../../x.png', `${key}.tmp`, key.replace('.wav', '.exe'), key.toUpperCase()]) {
      expect(isObjectKey(bad)).toBe(false);
      expect(await storage.find(bad)).toBeNull();
    }
  });
});
