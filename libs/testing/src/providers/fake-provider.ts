import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PNG } from 'pngjs';
import type { GenerationType } from '@gen/contracts';

/**
 * What the provider fakes (fake-replicate, fake-fal, fake-cog, fake-openai-images) share: HTTP servers
 * on 127.0.0.1 that record every request, a second origin standing in for the provider's CDN, and real
 * asset bytes of each type. Each fake is written from its provider's published API reference (cited in
 * its file), not from our adapters, so the adapters are tested against the documented protocol.
 */

export interface RecordedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Which fake origin got it. */
  origin: 'api' | 'cdn';
  /** When its body had arrived (ms since the epoch). */
  at: number;
}

/** The leaky text fakes put into their errors (hosts, a key, a stack): must never reach a user. */
export const LEAK =
  'Traceback: gpu-node-7.internal.example:8443 CUDA OOM; key sk-upstream-9f8e7d; at Worker.run (/srv/app/worker.py:42) http://10.1.2.3/admin';

function makePng(): Buffer {
  const png = new PNG({ width: 8, height: 8 });
  png.data.fill(180);
  return PNG.sync.write(png);
}

/** A WAV file: RIFF/WAVE, PCM 16-bit mono 8 kHz, 80 samples of silence. */
function makeWav(): Buffer {
  const samples = 80;
  const data = Buffer.alloc(samples * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** An MP4's first box (`ftyp`, brand isom), which is what identifies the container. */
function makeMp4(): Buffer {
  const box = Buffer.alloc(24);
  box.writeUInt32BE(24, 0);
  box.write('ftypisom', 4, 'latin1');
  box.writeUInt32BE(0x200, 12);
  box.write('isommp41', 16, 'latin1');
  return box;
}

/** A binary glTF 2.0 with a minimal JSON chunk. */
function makeGlb(): Buffer {
  let json = Buffer.from('{"asset":{"version":"2.0"}}', 'utf8');
  if (json.length % 4) json = Buffer.concat([json, Buffer.alloc(4 - (json.length % 4), 0x20)]);
  const header = Buffer.alloc(20);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + json.length, 8);
  header.writeUInt32LE(json.length, 12);
  header.write('JSON', 16, 'latin1');
  return Buffer.concat([header, json]);
}

/** The start of a JFIF file. */
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]);

export const ASSETS = { png: makePng(), jpeg: JPEG, wav: makeWav(), mp4: makeMp4(), glb: makeGlb() };
export type AssetName = keyof typeof ASSETS;
export const ASSET_TYPES: Record<AssetName, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  glb: 'model/gltf-binary',
};
/** The asset a generation type makes. */
export const ASSET_OF: Record<GenerationType, AssetName> = { TEXT_TO_IMAGE: 'png', TEXT_TO_VIDEO: 'mp4', TEXT_TO_AUDIO: 'wav', TEXT_TO_3D: 'glb' };

export function dataUri(asset: AssetName): string {
  return `data:${ASSET_TYPES[asset]};base64,${ASSETS[asset].toString('base64')}`;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string, recorded: RecordedRequest) => void | Promise<void>;

export interface FakeServers {
  /** The API origin (http://127.0.0.1:<port>). */
  url: string;
  /** The CDN origin: serves `/files/<name>.<asset>` (png, jpeg, wav, mp4, glb), and `/files/missing.*` as 404. */
  cdnUrl: string;
  requests: RecordedRequest[];
  /** Requests of one origin and method whose path matches. */
  calls(method: string, path: RegExp, origin?: 'api' | 'cdn'): RecordedRequest[];
  close(): Promise<void>;
}

/** Starts the API origin (with `handler`) and the CDN origin, both recording into `requests`. */
export async function startFakeServers(handler: Handler): Promise<FakeServers> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const listen = async (origin: 'api' | 'cdn', serve: Handler): Promise<{ server: Server; url: string }> => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, origin, at: Date.now() };
        requests.push(recorded);
        Promise.resolve(serve(req, res, body, recorded)).catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(`fake failed: ${String(error)}`);
        });
      });
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const cdn = await listen('cdn', (req, res) => {
    const match = /^\/files\/([\w-]+)\.(png|jpeg|wav|mp4|glb)$/.exec(req.url ?? '');
    if (!match || match[1] === 'missing') return void res.writeHead(404, { 'content-type': 'text/html' }).end(`<html>404 on ${LEAK}</html>`);
    if (match[1] === 'html') return void res.writeHead(200, { 'content-type': 'image/png' }).end(`<html>Error ${LEAK}</html>`);
    const asset = match[2] as AssetName;
    res.writeHead(200, { 'content-type': ASSET_TYPES[asset] }).end(ASSETS[asset]);
  });
  const api = await listen('api', handler);
  return {
    url: api.url,
    cdnUrl: cdn.url,
    requests,
    calls: (method, path, origin = 'api') => requests.filter((r) => r.origin === origin && r.method === method && path.test(r.path)),
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([api.server, cdn.server].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A callback a fake sent (or tried to), with what our service answered. */
export interface SentCallback {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The answer's status; 0 when the request failed (nothing listening). */
  status: number;
  /** The answer's body (the envelope of a refusal). */
  answer: string;
  at: number;
}

/** POSTs a callback as a provider does (JSON, no redirects followed), records it, and never throws. */
export async function postCallback(sent: SentCallback[], url: string, headers: Record<string, string>, body: string): Promise<SentCallback> {
  const record: SentCallback = { url, headers, body, status: 0, answer: '', at: Date.now() };
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
    record.status = res.status;
    record.answer = await res.text();
  } catch {
    // Nothing answered: recorded with status 0, as a provider would log a failed delivery.
  }
  sent.push(record);
  return record;
}

/** A catalogue model as a running deployment stores it (`generation.models`, the binding as `engine`). */
export interface CatalogueRow {
  id: string;
  type: GenerationType;
  credits: number;
  synchronous: boolean;
  minPlan: 'free' | 'lite' | 'pro' | 'enterprise';
  /** The whole binding: `{"engine": "<kind>", ...settings}`. */
  engine: Record<string, unknown>;
}

/**
 * Binds a model in a running deployment the way an operator's `models add` would end up doing (a row
 * in `generation.models`, re-read by every replica), then waits until the gateway lists it: the
 * generation service has read it and built its engine.
 */
export async function addCatalogueModel(
  query: (sql: string, params: unknown[]) => Promise<unknown>,
  gatewayUrl: string,
  key: string,
  row: CatalogueRow,
  timeoutMs = 20_000,
): Promise<{ available: boolean; unavailable_reason: string | null }> {
  await query(
    `INSERT INTO generation.models (id, name, type, credits, minimum_credits, synchronous, min_plan, status, engine, provider, description)
     VALUES ($1, $2, $3, $4, $4, $5, $6, 'active', $7::jsonb, $8, '')`,
    // The provider label `models add` would give it: the engine kind's (`openai-images` is OpenAI's).
    [row.id, `Test model ${row.id}`, row.type, row.credits, row.synchronous, row.minPlan, JSON.stringify(row.engine), row.engine.engine === 'openai-images' ? 'openai' : String(row.engine.engine)],
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${gatewayUrl}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    const listed = res.ok ? ((await res.json()) as { data: Array<{ id: string; available: boolean; unavailable_reason: string | null }> }).data.find((m) => m.id === row.id) : undefined;
    if (listed) return listed;
    if (Date.now() > deadline) throw new Error(`model ${row.id} was not listed within ${timeoutMs} ms`);
    await sleep(200);
  }
}
