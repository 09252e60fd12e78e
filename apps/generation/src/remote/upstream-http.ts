import { Agent, errors, request } from 'undici';
import type { RemoteEngineSettings } from './remote-engine.settings';
import { UpstreamFailure, UpstreamFailureKind } from './upstream-failure';

export interface UpstreamCall {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** Largest body read; a longer one fails with `tooLarge`. */
  maxBytes: number;
  /** The failure kind of a body over `maxBytes`. */
  tooLarge: UpstreamFailureKind;
}

export interface UpstreamAnswer {
  status: number;
  location: string | null;
  body: Buffer;
}

/**
 * HTTP to one upstream: one connection pool (keep-alive, connect timeout) and a per-call timeout.
 * `signal` is the job's own signal (lease lost, shutdown, whole-generation deadline): when it
 * aborts, its reason is thrown unchanged so the caller can tell cancellation from a failure.
 * Redirects are never followed here; the caller decides (only output downloads follow them).
 */
export class UpstreamHttp {
  private readonly agent: Agent;

  constructor(private readonly settings: Pick<RemoteEngineSettings, 'connectTimeoutMs' | 'requestTimeoutMs'>) {
    this.agent = new Agent({
      connect: { timeout: settings.connectTimeoutMs },
      headersTimeout: settings.requestTimeoutMs,
      bodyTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  async send(call: UpstreamCall, signal: AbortSignal, timeoutMs = this.settings.requestTimeoutMs): Promise<UpstreamAnswer> {
    signal.throwIfAborted();
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    const what = `${call.method} ${call.url.pathname}`;
    try {
      const response = await request(call.url, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        dispatcher: this.agent,
        signal: combined,
      });
      const body = await readLimited(response.body, call.maxBytes, () => {
        throw new UpstreamFailure(call.tooLarge, `${what}: body larger than ${call.maxBytes} bytes`);
      });
      const location = response.headers.location;
      return { status: response.statusCode, location: typeof location === 'string' ? location : null, body };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof UpstreamFailure) throw error;
      if (timeout.aborted || error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
        throw new UpstreamFailure('timeout', `${what}: no complete answer within ${timeoutMs} ms`, { cause: error });
      }
      if (error instanceof errors.ConnectTimeoutError) {
        throw new UpstreamFailure('timeout', `${what}: connect timeout`, { cause: error });
      }
      const code = (error as { code?: string }).code ?? (error as Error).name;
      throw new UpstreamFailure('unavailable', `${what}: network error ${code}`, { cause: error });
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): unknown }, maxBytes: number, onTooLarge: () => never): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      onTooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
