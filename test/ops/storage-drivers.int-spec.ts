// The storage drivers' shared spec table: every behaviour of OutputStorage, run against the local folder
// and against a real S3-compatible server (s3rver, started here). Driver-specific checks follow.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { startS3Server, TestS3Server } from '@gen/testing';
import { isObjectKey, LocalDirectoryStorage, newObjectKey, ObjectTooLargeError, OutputStorage, putSniffed, S3ObjectStorage, StoredObject, UnacceptedFormatError } from '@gen/storage';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A stream of `size` bytes made in 64 KiB chunks as it is read (never all in memory), counting what was read. */
function generated(size: number, seed = 7): Readable & { produced: () => number } {
  let produced = 0;
  const stream = Readable.from(
    (function* () {
      while (produced < size) {
        const length = Math.min(64 * 1024, size - produced);
        const chunk = Buffer.alloc(length);
        for (let i = 0; i < length; i++) chunk[i] = (produced + i + seed) % 251;
        produced += length;
        yield chunk;
      }
    })(),
  ) as Readable & { produced: () => number };
  stream.produced = () => produced;
  return stream;
}

function expectedByte(offset: number, seed = 7): number {
  return (offset + seed) % 251;
}

/** One driver under the shared table: how to make it, and how to see what it holds underneath. */
interface Driver {
  name: string;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  make(): OutputStorage;
  /** The names the store holds (files or object names), for "nothing else was left behind". */
  names(): Promise<string[]>;
}

function localDriver(): Driver {
  let root = '';
  const walk = (dir: string, prefix = ''): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
    );
  return {
    name: 'local',
    setUp: () => Promise.resolve(void (root = mkdtempSync(join(tmpdir(), 'outputs-')))),
    tearDown: () => Promise.resolve(rmSync(root, { recursive: true, force: true })),
    make: () => new LocalDirectoryStorage(root),
    names: () => Promise.resolve(existsSync(root) ? walk(root) : []),
  };
}

function s3Driver(): Driver {
  let server: TestS3Server;
  let prefix = '';
  let count = 0;
  return {
    name: 's3 (s3rver)',
    setUp: async () => {
      server ??= await startS3Server();
      prefix = `spec-${++count}/`; // each test its own prefix: nothing of another test is seen
    },
    tearDown: () => Promise.resolve(),
    // Parts of 5 MiB (S3's least), so a 12 MiB write is a multipart upload of three parts.
    make: () => new S3ObjectStorage({ client: server.client(), bucket: server.bucket, prefix, partSizeBytes: 5 * 1024 * 1024 }),
    names: async () => {
      const listed = await server.client().send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key!.slice(prefix.length));
    },
    // The server itself is closed once, after every test of the table.
    ...{ close: () => server?.close() },
  } as Driver & { close: () => Promise<void> };
}

const drivers = [localDriver(), s3Driver()];
afterAll(async () => {
  for (const driver of drivers) await (driver as Driver & { close?: () => Promise<void> }).close?.();
});

describe.each(drivers)('OutputStorage: $name', (driver) => {
  let storage: OutputStorage;
  beforeEach(async () => {
    await driver.setUp();
    storage = driver.make();
  });
  afterEach(() => driver.tearDown());

  it('stores under an unguessable key (128 random bits, sharded) and leaves nothing else behind', async () => {
    const key = await storage.put(Buffer.from('png bytes'), 'png');
    expect(key).toMatch(/^([0-9a-f]{2})\/\1[0-9a-f]{30}\.png$/);
    const found = await storage.find(key);
    expect(found).toMatchObject({ size: 9, contentType: 'image/png' });
    expect((await bytesOf(found!.open())).toString()).toBe('png bytes');
    expect(await driver.names()).toEqual([key]);
    const keys = new Set(Array.from({ length: 1000 }, () => newObjectKey('png')));
    expect(keys.size).toBe(1000);
  });

  it('finds an object with its size and the content type of its extension; nothing for a non-key or a missing key', async () => {
    const key = await storage.put(Buffer.from('RIFF....WAVE'), 'wav');
    const found: StoredObject | null = await storage.find(key);
    expect(found).toMatchObject({ size: 12, contentType: 'audio/wav' });
    expect((await bytesOf(found!.open())).toString()).toBe('RIFF....WAVE');
    expect(await storage.find(key.replace(/[0-9a-f]{32}/, 'f'.repeat(32)))).toBeNull();
    for (const bad of ['../../etc/passwd', 'ab/../../x.png', `${key}.tmp`, key.replace('.wav', '.exe'), key.toUpperCase()]) {
      expect(isObjectKey(bad)).toBe(false);
      expect(await storage.find(bad)).toBeNull();
    }
  });

  it('reads a byte range (both ends included)', async () => {
    const key = await storage.put(Buffer.from('0123456789'), 'glb');
    const found = await storage.find(key);
    expect((await bytesOf(found!.open({ start: 2, end: 5 }))).toString()).toBe('2345');
    expect((await bytesOf(found!.open({ start: 9, end: 9 }))).toString()).toBe('9');
  });

  it('streams a large write (multipart above the part size) without holding it, and reads it back, whole and by range', async () => {
    const size = 12 * 1024 * 1024 + 123;
    const source = generated(size);
    const key = await storage.putStream(source, 'mp4');
    expect(source.produced()).toBe(size);
    const found = await storage.find(key);
    expect(found).toMatchObject({ size, contentType: 'video/mp4' });
    const whole = await bytesOf(found!.open());
    expect(whole.length).toBe(size);
    for (const offset of [0, 1, 5 * 1024 * 1024 - 1, 5 * 1024 * 1024, size - 1]) expect(whole[offset]).toBe(expectedByte(offset));
    const tail = await bytesOf(found!.open({ start: size - 10, end: size - 1 }));
    expect([...tail]).toEqual(Array.from({ length: 10 }, (_, i) => expectedByte(size - 10 + i)));
    expect(await driver.names()).toEqual([key]);
  });

  it('is idempotent per key: writing a key again replaces the object whole', async () => {
    const key = newObjectKey('png');
    await storage.write(key, Buffer.from('first'));
    await storage.write(key, Buffer.from('first'));
    expect((await bytesOf((await storage.find(key))!.open())).toString()).toBe('first');
    await storage.write(key, Readable.from([Buffer.from('sec'), Buffer.from('ond')]));
    expect(await storage.find(key)).toMatchObject({ size: 6 });
    expect((await bytesOf((await storage.find(key))!.open())).toString()).toBe('second');
    expect(await driver.names()).toEqual([key]);
  });

  it('a failed stream stores nothing under the key', async () => {
    const key = newObjectKey('mp4');
    const failing = Readable.from(
      (async function* () {
        yield Buffer.alloc(1024, 1);
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error('engine stream broke');
      })(),
    );
    await expect(storage.write(key, failing)).rejects.toThrow('engine stream broke');
    expect(await storage.find(key)).toBeNull();
    expect(await driver.names()).toEqual([]);
  });

  it('deletes an object (missing is fine) and refuses anything that is not one of its keys', async () => {
    const key = await storage.put(Buffer.from('x'), 'glb');
    await storage.delete(key);
    expect(await storage.find(key)).toBeNull();
    await expect(storage.delete(key)).resolves.toBeUndefined();
    await expect(storage.delete('../../etc/passwd')).rejects.toThrow('not an object key');
    await expect(storage.write('../../etc/passwd', Buffer.from('x'))).rejects.toThrow('not an object key');
  });

  it('streams a sniffed write (uploads, fetched media and outputs): the bytes decide the format, and a source over the cap stops being read', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const stored = await putSniffed(storage, Readable.from([png.subarray(0, 3), png.subarray(3), Buffer.from('rest')]), { maxBytes: 100, accept: (f) => f?.extension === 'png' });
    expect(stored).toMatchObject({ bytes: 12, format: { extension: 'png', contentType: 'image/png' } });
    expect(stored.key).toMatch(/\.png$/);
    expect((await bytesOf((await storage.find(stored.key))!.open())).subarray(0, 8)).toEqual(png);
    // An HTML page sent as an image, and a format the caller does not take: refused before any write.
    await expect(putSniffed(storage, Readable.from([Buffer.from('<!doctype html><html>')]), { maxBytes: 100, accept: () => true })).rejects.toBeInstanceOf(UnacceptedFormatError);
    await expect(putSniffed(storage, Readable.from([png]), { maxBytes: 100, accept: (f) => f?.extension === 'mp4' })).rejects.toThrow('image/png, which is not accepted here');
    // 12 MiB of video against a 6 MiB cap: cut off after the cap, the rest never read, nothing kept.
    const mp4 = Buffer.from('\0\0\0\x18ftypisom', 'latin1');
    const big = generated(12 * 1024 * 1024);
    const source = (async function* () {
      yield mp4;
      yield* big;
    })();
    await expect(putSniffed(storage, source, { maxBytes: 6 * 1024 * 1024, accept: () => true })).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(big.produced()).toBeLessThan(8 * 1024 * 1024);
    expect(await driver.names()).toEqual([stored.key]);
  });

  it('deletes many at once (the retention sweep), missing keys included; a bad key deletes nothing', async () => {
    const keys = await Promise.all(Array.from({ length: 5 }, (_, i) => storage.put(Buffer.from(`object ${i}`), 'png')));
    await expect(storage.deleteMany([keys[0], 'ab/../x.png'])).rejects.toThrow('not an object key');
    expect(await storage.find(keys[0])).not.toBeNull();
    await storage.deleteMany([...keys.slice(0, 4), newObjectKey('png')]);
    expect(await driver.names()).toEqual([keys[4]]);
    await expect(storage.deleteMany([])).resolves.toBeUndefined();
  });
});

describe('S3ObjectStorage', () => {
  let server: TestS3Server;
  beforeAll(async () => (server = await startS3Server('presign-bucket')));
  afterAll(() => server.close());

  it('stores the content type and cache policy with the object, under its prefix', async () => {
    const storage = new S3ObjectStorage({ client: server.client(), bucket: server.bucket, prefix: 'install-a/', cacheControl: 'public, max-age=3600, immutable' });
    const key = await storage.put(Buffer.from('png'), 'png');
    const listed = await server.client().send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: 'install-a/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual([`install-a/${key}`]);
    const url = await storage.signedUrl(key, 60);
    const answer = await fetch(url!);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/png');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=3600, immutable');
    expect(await answer.text()).toBe('png');
  });

  it('uploads in parts above the part size, in one PUT below it, and aborts a failed multipart upload', async () => {
    const client = server.client();
    const sent: string[] = [];
    const send = client.send.bind(client);
    client.send = ((command: { constructor: { name: string } }, ...rest: unknown[]) => {
      sent.push(command.constructor.name.replace(/Command$/, ''));
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as typeof client.send;
    const storage = new S3ObjectStorage({ client, bucket: server.bucket, prefix: 'parts/', partSizeBytes: 5 * 1024 * 1024 });
    await storage.putStream(generated(11 * 1024 * 1024), 'mp4');
    expect(sent.sort()).toEqual(['CompleteMultipartUpload', 'CreateMultipartUpload', 'UploadPart', 'UploadPart', 'UploadPart']);
    sent.length = 0;
    await storage.putStream(generated(1024), 'wav');
    await storage.put(Buffer.alloc(2048), 'wav');
    expect(sent).toEqual(['PutObject', 'PutObject']);
    sent.length = 0;
    const broken = Readable.from(
      (async function* () {
        yield* generated(6 * 1024 * 1024);
        throw new Error('upstream closed');
      })(),
    );
    await expect(storage.putStream(broken, 'mp4')).rejects.toThrow('upstream closed');
    expect(sent).toContain('AbortMultipartUpload');
  });

  it('presigns a GET that expires: the URL says when, and is refused after', async () => {
    const storage = new S3ObjectStorage({ client: server.client(), bucket: server.bucket });
    const key = await storage.put(Buffer.from('signed bytes'), 'webp');
    const url = new URL((await storage.signedUrl(key, 120))!);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('120');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(await (await fetch(url)).text()).toBe('signed bytes');
    // s3rver checks a presigned URL's expiry (not its SigV4 signature: S3 itself does).
    const short = (await storage.signedUrl(key, 1))!;
    expect((await fetch(short)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const refused = await fetch(short);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Request has expired');
  });
});
