import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PNG } from 'pngjs';
import type { RecordedRequest } from './fake-provider';

/**
 * What the fake upstream does with a job. The scenario is chosen by the `model` field of the
 * submit call, so one server serves every case (bind each test model to `upstreamModel: <scenario>`).
 */
export type UpstreamScenario =
  /** queued -> running -> succeeded, output is a real PNG. */
  | 'ok'
  /** Like ok, with a JPEG output (served as application/octet-stream: the bytes decide). */
  | 'ok-jpeg'
  /** Like ok, but the output sits on the other fake origin (allowed or not by outputOrigins). */
  | 'foreign-output'
  /** Like ok, but the first status poll answers 503. */
  | 'flaky-poll'
  /** Submit never answers (the connection stays open). */
  | 'submit-hang'
  /** Accepted, then running forever. */
  | 'never-finishes'
  /** Submit answers 500 with an internal-looking body. */
  | 'submit-500'
  /** Submit accepted, every status poll answers 503. */
  | 'poll-503'
  /** Submit answers 200 with an HTML page. */
  | 'submit-html'
  /** Submit answers JSON without an id. */
  | 'submit-no-id'
  /** Status answers an unknown status value. */
  | 'status-unknown'
  /** Succeeded without an output URL. */
  | 'succeeded-no-output'
  /** Succeeded, but the output URL answers 404. */
  | 'output-404'
  /** Succeeded, but the output is an HTML page served as 200 image/png. */
  | 'output-html'
  /** The upstream reports the generation as failed, with a leaky error text. */
  | 'failed'
  /** Submit answers 401 (wrong credential). */
  | 'unauthorized'
  /** The first submit answers 429 with `Retry-After: 1`, the next is accepted (then as `ok`). */
  | 'submit-429';


export interface FakeUpstream {
  /** Base URL of the API origin (http://127.0.0.1:<port>). */
  url: string;
  /** A second origin, standing in for the upstream's CDN. */
  cdnUrl: string;
  /** The credential the API expects in `authorization: Bearer <secret>`. */
  secret: string;
  /** The leaky text the upstream puts into its errors (hostnames, a key, a stack): must never reach users. */
  leak: string;
  requests: RecordedRequest[];
  /** The bytes served as the output of `ok` jobs. */
  png: Buffer;
  /** The bytes served as the output of `ok-jpeg` jobs (a JPEG signature and header). */
  jpeg: Buffer;
  close(): Promise<void>;
}

/** The start of a JFIF file: what our format check looks at. */
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]);

const LEAK =
  'Traceback: gpu-node-7.internal.example:8443 CUDA OOM; key sk-upstream-9f8e7d; at Worker.run (/srv/app/worker.py:42) http://10.1.2.3/admin';

/** A tiny PNG, made with pngjs (independent from our engines). */
function makePng(): Buffer {
  const png = new PNG({ width: 8, height: 8 });
  png.data.fill(200);
  return PNG.sync.write(png);
}

interface FakeJob {
  id: string;
  scenario: UpstreamScenario;
  polls: number;
}

/** A small upstream model API on 127.0.0.1:0 (and a second "CDN" origin), speaking the protocol of docs/operations/providers.md. */
export async function startFakeUpstream(secret = 'upstream-secret-123'): Promise<FakeUpstream> {
  const jobs = new Map<string, FakeJob>();
  const requests: RecordedRequest[] = [];
  const png = makePng();
  const sockets = new Set<Socket>();
  let throttled = false;
  let counter = 0;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const listen = async (handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{ server: Server; url: string }> => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };

  const cdn = await listen((req, res, body) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, origin: 'cdn', at: Date.now() });
    if (req.url?.startsWith('/assets/')) res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else res.writeHead(404).end();
  });

  const api = await listen((req, res, body) => {
    const path = req.url ?? '';
    requests.push({ method: req.method ?? '', path, headers: req.headers, body, origin: 'api', at: Date.now() });
    if (path.startsWith('/files/')) {
      const job = jobs.get(path.slice('/files/'.length).replace(/\.png$/, ''));
      if (!job || job.scenario === 'output-404') return void res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found on ${LEAK}`);
      if (job.scenario === 'output-html') {
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(`<html><body>Error ${LEAK}</body></html>`);
      }
      if (job.scenario === 'ok-jpeg') return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(JPEG);
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    }
    if (req.headers.authorization !== `Bearer ${secret}`) return json(res, 401, { error: 'bad key' });

    if (req.method === 'POST' && path === '/v1/generations') {
      let scenario: UpstreamScenario = 'ok';
      try {
        scenario = (JSON.parse(body) as { model: UpstreamScenario }).model;
      } catch {
        return json(res, 400, { error: 'bad json' });
      }
      if (scenario === 'submit-429' && !throttled) {
        throttled = true;
        return void res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ error: 'slow down' }));
      }
      switch (scenario) {
        case 'submit-hang':
          return; // never answers
        case 'submit-500':
          return void res.writeHead(500, { 'content-type': 'text/plain' }).end(LEAK);
        case 'submit-html':
          return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html>${LEAK}</html>`);
        case 'submit-no-id':
          return json(res, 202, { status: 'queued' });
        case 'unauthorized':
          return json(res, 401, { error: LEAK });

        default: {
          const id = `up_${++counter}`;
          jobs.set(id, { id, scenario, polls: 0 });
          return json(res, 202, { id, status: 'queued' });
        }
      }
    }
    const status = /^\/v1\/generations\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && status) {
      const job = jobs.get(decodeURIComponent(status[1]));
      if (!job) return json(res, 404, { error: 'no such job' });
      job.polls++;
      switch (job.scenario) {
        case 'never-finishes':
          return json(res, 200, { id: job.id, status: 'running' });
        case 'poll-503':
          return void res.writeHead(503, { 'content-type': 'text/plain' }).end(LEAK);
        case 'flaky-poll':
          if (job.polls === 1) return void res.writeHead(503).end(LEAK);
          break;
        case 'status-unknown':
          return json(res, 200, { id: job.id, status: 'exploded', detail: LEAK });
        case 'succeeded-no-output':
          return json(res, 200, { id: job.id, status: 'succeeded' });
        case 'failed':
          return json(res, 200, { id: job.id, status: 'failed', error: LEAK });
        default:
          break;
      }
      // The protocol's optional detail of a pending job: how far it is, its place in the upstream's queue.
      if (job.polls < 2) return json(res, 200, { id: job.id, status: 'running', progress: 0.5, queue_position: 0 });
      const output_url = job.scenario === 'foreign-output' ? `${cdn.url}/assets/${job.id}.png` : `/files/${job.id}.png`;
      return json(res, 200, { id: job.id, status: 'succeeded', output_url });
    }
    const cancel = /^\/v1\/generations\/([^/]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancel) return json(res, 200, { id: cancel[1], status: 'canceled' });
    json(res, 404, { error: 'no route' });
  });

  return {
    url: api.url,
    cdnUrl: cdn.url,
    secret,
    leak: LEAK,
    requests,
    png,
    jpeg: JPEG,
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([api.server, cdn.server].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

/**
 * Asserts a user-facing error is sanitised: a sentence of ours, with nothing of the upstream in
 * it (no host, address, port, URL, path, key, stack frame).
 */
export function sanitisationProblems(message: string, upstream: Pick<FakeUpstream, 'url' | 'secret' | 'leak'>): string[] {
  const problems: string[] = [];
  const forbidden = [
    upstream.secret,
    new URL(upstream.url).host,
    new URL(upstream.url).port,
    '127.0.0.1',
    'localhost',
    'internal',
    'sk-',
    '10.1.2.3',
    '://',
    'http',
    'Traceback',
    ' at ',
    '.py',
    'Error:',
    'undefined',
  ];
  for (const text of forbidden) if (message.includes(text)) problems.push(`contains ${JSON.stringify(text)}`);
  if (!/refunded/.test(message)) problems.push('does not say the credits were refunded');
  if (message.length > 200) problems.push('is longer than 200 characters');
  return problems;
}
