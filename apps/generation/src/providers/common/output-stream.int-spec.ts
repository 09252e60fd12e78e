import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOutputStorage, ObjectSource, OutputStorage } from '@gen/storage';
import { ASSETS } from '@gen/testing';
import { OutputFetcher } from './output-fetch';
import { UpstreamFailure } from './upstream-failure';
import { UpstreamHttp } from './upstream-http';

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;
/** The start of an MP4 (`ftyp` box): enough for the format to be recognised. */
const MP4_HEAD = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom\0\0\x02\0isom', 'latin1')]);

/** Chunk `i` of a fake video: the MP4 head first, then bytes that differ from chunk to chunk. */
function chunk(i: number): Buffer {
  const bytes = Buffer.alloc(CHUNK, i % 251);
  bytes.writeUInt32BE(i, CHUNK - 4);
  if (i === 0) MP4_HEAD.copy(bytes);
  return bytes;
}

/**
 * A download of a large output goes from the provider into the storage as it arrives: what the
 * process holds is the part in flight, the cap is enforced while streaming (the rest is never
 * downloaded) and a refused or failed download leaves nothing stored.
 */
describe('OutputFetcher streaming into the storage', () => {
  let server: Server;
  let api: string;
  let dir: string;
  let storage: OutputStorage;
  /** Bytes the fake upstream has written to the socket so far, and what it offered in all. */
  let sent = 0;
  let offered = 0;
  let served = createHash('sha256');
  /** Bytes the storage has taken in, and the most the upstream was ever ahead of it. */
  let received = 0;
  let maxAhead = 0;
  const http = new UpstreamHttp({ connectTimeoutMs: 1_000, requestTimeoutMs: 60_000, allowPrivateNetworks: true });
  const signal = new AbortController().signal;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'output-stream-'));
    server = createServer(async (req, res) => {
      const match = /^\/video\/(\d+)$/.exec(req.url ?? '');
      if (req.url === '/html') return void res.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.alloc(8 * MiB, '<html>'));
      if (req.url === '/png') return void res.writeHead(200).end(ASSETS.png);
      if (req.url === '/to-video') return void res.writeHead(302, { location: '/video/8' }).end('moved');
      if (!match) return void res.writeHead(404).end();
      // Served lazily: a chunk is written only when the socket has taken the one before.
      const chunks = Number(match[1]) * (MiB / CHUNK);
      offered = chunks * CHUNK;
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(offered) });
      let closed = false;
      res.on('close', () => (closed = true));
      for (let i = 0; i < chunks && !closed; i++) {
        const bytes = chunk(i);
        served.update(bytes);
        sent += bytes.length;
        maxAhead = Math.max(maxAhead, sent - received);
        if (!res.write(bytes)) {
          await new Promise<void>((resolve) => {
            const go = () => {
              res.off('drain', go).off('close', go);
              resolve();
            };
            res.on('drain', go).on('close', go);
          });
        }
      }
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    const local = createOutputStorage({ driver: 'local', dir });
    const write = local.write.bind(local);
    // Counts what reaches the storage, and takes it slowly so an upstream read ahead would show.
    local.write = (key: string, source: ObjectSource) =>
      write(
        key,
        (async function* () {
          let sinceWait = 0;
          for await (const bytes of source as AsyncIterable<Uint8Array>) {
            received += bytes.length;
            sinceWait += bytes.length;
            if (sinceWait >= 4 * MiB) {
              sinceWait = 0;
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
            yield bytes;
          }
        })(),
      );
    storage = local;
    sent = offered = received = maxAhead = 0;
    served = createHash('sha256');
  });
  afterAll(async () => {
    await http.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  const fetcher = (maxOutputBytes: number) =>
    new OutputFetcher(http, { apiOrigin: api, apiBase: `${api}/v1`, outputOrigins: [], maxOutputBytes, apiHeaders: () => ({}) }, storage);
  const kind = (promise: Promise<unknown>) => promise.then(() => 'ok', (e: unknown) => (e instanceof UpstreamFailure ? e.kind : String(e)));
  /** Every object file in the storage folder (none half-written either). */
  const files = async () => (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  const hashOf = async (key: string) => {
    const object = await storage.find(key);
    const hash = createHash('sha256');
    for await (const bytes of object!.open()) hash.update(bytes as Buffer);
    return { size: object!.size, sha256: hash.digest('hex') };
  };

  it('stores a 48 MiB video intact without ever holding it whole', async () => {
    const output = await fetcher(64 * MiB).fetch(`${api}/video/48`, 'TEXT_TO_VIDEO', signal);
    expect(output).toEqual({ stored: { key: expect.stringMatching(/\.mp4$/), bytes: 48 * MiB }, contentType: 'video/mp4', extension: 'mp4' });
    expect(output.data).toBeUndefined();
    expect(await hashOf(output.stored!.key)).toEqual({ size: 48 * MiB, sha256: served.digest('hex') });
    // The upstream could only ever be a socket's buffers ahead of the storage, not the whole file.
    expect(maxAhead).toBeLessThan(16 * MiB);
    await storage.delete(output.stored!.key);
  });

  it('cuts a download off at maxOutputBytes: the rest is never sent and nothing is stored', async () => {
    expect(await kind(fetcher(4 * MiB).fetch(`${api}/video/48`, 'TEXT_TO_VIDEO', signal))).toBe('output_invalid');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(offered).toBe(48 * MiB);
    expect(sent).toBeLessThan(16 * MiB);
    expect(await files()).toEqual([]);
  });

  it('refuses bytes of the wrong format (or of another type) after their first bytes, storing nothing', async () => {
    expect(await kind(fetcher(64 * MiB).fetch(`${api}/html`, 'TEXT_TO_VIDEO', signal))).toBe('output_invalid');
    expect(await kind(fetcher(64 * MiB).fetch(`${api}/png`, 'TEXT_TO_VIDEO', signal))).toBe('output_invalid');
    expect(await kind(fetcher(64 * MiB).fetch(`${api}/video/1`, 'TEXT_TO_IMAGE', signal))).toBe('output_invalid');
    expect(await files()).toEqual([]);
  });

  it('follows a redirect to the video and streams it', async () => {
    const output = await fetcher(64 * MiB).fetch(`${api}/to-video`, 'TEXT_TO_VIDEO', signal);
    expect(await hashOf(output.stored!.key)).toEqual({ size: 8 * MiB, sha256: served.digest('hex') });
    await storage.delete(output.stored!.key);
  });

  it('settle() deletes the outputs already stored when another one fails', async () => {
    const outputs = fetcher(16 * MiB);
    const failing = outputs.fetch(`${api}/missing`, 'TEXT_TO_VIDEO', signal);
    const good = outputs.fetch(`${api}/video/2`, 'TEXT_TO_VIDEO', signal);
    expect(await kind(outputs.settle([good, failing]))).toBe('output_unavailable');
    expect((await good).stored).toBeDefined();
    expect(await files()).toEqual([]);
  });

  it('without a storage, reads the output into memory as before', async () => {
    const output = await new OutputFetcher(http, { apiOrigin: api, apiBase: api, outputOrigins: [], maxOutputBytes: 4 * MiB, apiHeaders: () => ({}) }).fetch(`${api}/png`, 'TEXT_TO_IMAGE', signal);
    expect(output.data?.equals(ASSETS.png)).toBe(true);
    expect(await kind(new OutputFetcher(http, { apiOrigin: api, apiBase: api, outputOrigins: [], maxOutputBytes: MiB, apiHeaders: () => ({}) }).fetch(`${api}/video/48`, 'TEXT_TO_VIDEO', signal))).toBe('output_invalid');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent).toBeLessThan(16 * MiB);
  });
});
