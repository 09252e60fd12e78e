import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GenerationRecord } from '@gen/contracts';

/**
 * One Server-Sent Events response on Fastify: the headers go out with the first event (so an error
 * before it, a 404 or a 429, is still an ordinary enveloped answer), each record is an event named
 * after its status, and a comment line keeps it alive. Headers already set on the reply
 * (X-Request-Id, the rate-limit headers) are kept.
 */
export class SseStream {
  private started = false;
  private ended = false;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  /** Calls `listener` once when the client goes away. */
  onClose(listener: () => void): void {
    if (this.request.raw.destroyed || this.reply.raw.destroyed) return listener();
    this.reply.raw.once('close', listener);
  }

  /** An event named after the record's status; `id` is what a reconnect sends back as Last-Event-ID. */
  send(record: GenerationRecord, id: string): void {
    if (this.ended) return;
    this.start();
    this.reply.raw.write(`id: ${id}\nevent: ${record.status}\ndata: ${JSON.stringify(record)}\n\n`);
  }

  /** The stream's headers (and `retry`) with no event yet. */
  open(): void {
    if (!this.ended) this.start();
  }

  /** 204 instead of a stream: EventSource stops reconnecting on it. */
  noContent(): void {
    if (this.started || this.ended) return;
    this.ended = true;
    void this.reply.code(204).send();
  }

  heartbeat(): void {
    if (this.started && !this.ended) this.reply.raw.write(': keep-alive\n\n');
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.started) this.reply.raw.end();
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.reply.hijack();
    const inherited = Object.fromEntries(Object.entries(this.reply.getHeaders()).filter(([, v]) => v !== undefined)) as Record<string, string | string[] | number>;
    this.reply.raw.writeHead(200, {
      ...inherited,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // The stream is the connection's last response: when it ends, so does the connection.
      connection: 'close',
      // nginx (and ingress-nginx) would otherwise buffer the stream.
      'x-accel-buffering': 'no',
    });
    // Tells EventSource how long to wait before reconnecting after the stream ends abnormally.
    this.reply.raw.write('retry: 3000\n\n');
  }
}
