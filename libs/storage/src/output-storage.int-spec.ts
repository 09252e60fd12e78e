import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { LocalDirectoryStorage, WRITTEN_ON_LOOP_BYTES } from './output-storage';

// What only the local driver does; what every driver does is the shared table in
// test/ops/storage-drivers.int-spec.ts (run against this driver and S3).
describe('LocalDirectoryStorage', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'outputs-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes put() straight to the final name (no temporary file)', async () => {
    const storage = new LocalDirectoryStorage(root);
    const key = await storage.put(Buffer.from('png bytes'), 'png');
    expect(readFileSync(join(root, key), 'utf8')).toBe('png bytes');
    expect(readdirSync(join(root, key.slice(0, 2)))).toEqual([key.slice(3)]);
  });

  it('put(): a small object (written on the event loop) and a larger one (in the thread pool) land whole, each under a new key', async () => {
    const storage = new LocalDirectoryStorage(root);
    const small = Buffer.alloc(WRITTEN_ON_LOOP_BYTES, 1);
    const large = Buffer.alloc(WRITTEN_ON_LOOP_BYTES + 1, 2);
    const keys = await Promise.all([storage.put(small, 'png'), storage.put(large, 'png')]);
    expect(readFileSync(join(root, keys[0]))).toEqual(small);
    expect(readFileSync(join(root, keys[1]))).toEqual(large);
  });

  it.each([
    ['small', Buffer.from('b')],
    ['large', Buffer.alloc(WRITTEN_ON_LOOP_BYTES + 1, 3)],
  ])('recreates a shard folder removed while running (%s object)', async (_size, data) => {
    const storage = new LocalDirectoryStorage(root);
    const first = await storage.put(Buffer.from('a'), 'wav');
    rmSync(root, { recursive: true, force: true });
    // Until a key lands in the same shard again (the folder cache says it exists; it does not any more).
    let key: string;
    do key = await storage.put(data, 'wav');
    while (key.slice(0, 2) !== first.slice(0, 2));
    expect(readFileSync(join(root, key))).toEqual(data);
  });

  it('write(): a buffer lands although its shard folder was removed; a stream fails once, then the folder is made again', async () => {
    const storage = new LocalDirectoryStorage(root);
    const key = 'ab/0123456789abcdef0123456789abcdef.mp4';
    await storage.write(key, Buffer.from('first'));
    rmSync(root, { recursive: true, force: true });
    await storage.write(key, Buffer.from('again'));
    expect(readFileSync(join(root, key), 'utf8')).toBe('again');
    rmSync(root, { recursive: true, force: true });
    await expect(storage.write(key, Readable.from([Buffer.from('streamed')]))).rejects.toMatchObject({ code: 'ENOENT' });
    await storage.write(key, Readable.from([Buffer.from('streamed')]));
    expect(readFileSync(join(root, key), 'utf8')).toBe('streamed');
    expect(readdirSync(join(root, 'ab'))).toEqual([key.slice(3)]);
  });

  it('has no presigned URLs (the gateway serves the folder)', async () => {
    const storage = new LocalDirectoryStorage(root);
    expect(await storage.signedUrl(await storage.put(Buffer.from('x'), 'png'), 60)).toBeNull();
  });
});

