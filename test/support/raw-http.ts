import { connect, Socket } from 'node:net';

/** One response read off a raw connection, as the bytes came. */
export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** Parsed body when it is JSON. */
  json: any;
  /** Everything the server wrote. */
  raw: string;
  /** The server closed the connection (rather than the client's timeout). */
  closedByServer: boolean;
  elapsedMs: number;
}

/** A pause between writes (a slow client). */
export interface Pause {
  pauseMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

function parse(raw: Buffer): Omit<RawResponse, 'closedByServer' | 'elapsedMs'> {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = end >= 0 ? text.slice(0, end) : text;
  const [statusLine, ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const index = line.indexOf(':');
    if (index > 0) headers[line.slice(0, index).trim().toLowerCase()] = line.slice(index + 1).trim();
  }
  let body = end >= 0 ? raw.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1')).toString('utf8') : '';
  const length = Number(headers['content-length']);
  if (Number.isFinite(length)) body = Buffer.from(body).subarray(0, length).toString('utf8');
  let json: unknown;
  try {
    json = body ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  return { status, headers, body, json, raw: text };
}

/**
 * Writes bytes to the server exactly as given (pauses between parts, for slow clients) and reads
 * until the server closes the connection, the first response is complete, or `timeoutMs` passes.
 */
export async function rawExchange(
  baseUrl: string,
  parts: Array<string | Buffer | Pause>,
  options: { timeoutMs?: number; waitForClose?: boolean } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const started = Date.now();
  const socket: Socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined);
  const chunks: Buffer[] = [];
  let closed = false;
  const done = new Promise<void>((resolve) => {
    const finish = () => {
      closed = true;
      resolve();
    };
    socket.on('close', finish);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (options.waitForClose) return;
      const response = parse(Buffer.concat(chunks));
      const length = Number(response.headers['content-length']);
      if (response.status && Number.isFinite(length) && Buffer.byteLength(response.body) >= length) resolve();
    });
  });
  const timeout = sleep(options.timeoutMs ?? 10_000);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  void (async () => {
    for (const part of parts) {
      if (closed || socket.destroyed) return;
      if (typeof part === 'object' && !Buffer.isBuffer(part)) await sleep(part.pauseMs);
      else socket.write(part);
    }
  })();
  await Promise.race([done, timeout]);
  const response = parse(Buffer.concat(chunks));
  const closedByServer = closed;
  socket.destroy();
  return { ...response, closedByServer, elapsedMs: Date.now() - started };
}
