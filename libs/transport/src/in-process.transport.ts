import { CustomTransportStrategy, MessageHandler, Server } from '@nestjs/microservices';
import { BaseRpcContext } from '@nestjs/microservices';
import { InProcessBroadcaster } from './broadcaster';
import { runEventHandlers, settleReply } from './event-dispatch';
import { MessageRefusals, payloadProblems, refusalEnvelope } from './payload-check';
import { wireCopy } from './wire-copy';

/**
 * The in-process bus of standalone mode: the same @MessagePattern/@EventPattern handlers as over
 * NATS, called directly. Payloads are copied both ways as the wire would copy them (wireCopy: no
 * shared object references, Dates arrive as strings), so that code which works here works over NATS.
 * Each payload is checked against its subject's class before a handler sees it, as over NATS,
 * unless `checkPayloads` is false: standalone's messages never cross a process boundary (every one
 * is made by this process's own code from input already checked at its HTTP edge), and the check
 * was a tenth of its CPU per request (bench/HISTORY.md, issue 34); NATS servers always check.
 */
export class InProcessBus {
  private server?: InProcessServer;
  /** Messages refused on receipt (malformed payloads), counted for the process's metrics. */
  readonly refusals = new MessageRefusals();
  /** Broadcasts of the process (one emitter, shared by every module on this bus). */
  readonly broadcaster: InProcessBroadcaster;
  private readonly checkPayloads: boolean;

  constructor(options: { checkPayloads?: boolean } = {}) {
    this.checkPayloads = options.checkPayloads ?? true;
    this.broadcaster = new InProcessBroadcaster(this.refusals, this.checkPayloads);
  }

  attach(server: InProcessServer): void {
    this.server = server;
  }

  /**
   * Calls the handler with a copy of `data` and resolves with a copy of its answer: one copy each
   * way, as the wire would make. A handler's failure (the envelope's fields, from RpcErrorFilter)
   * rejects as it arrives over NATS; so does a malformed payload (422 `validation_error`).
   */
  request<T>(pattern: string, data: unknown): Promise<T> {
    let reply: Promise<unknown>;
    try {
      const handler = this.handler(pattern);
      if (!handler || handler.isEventHandler) {
        throw { code: 'service_unavailable', status: 503, message: `No handler for ${pattern}.` };
      }
      const copy = wireCopy(data);
      const problems = this.checkPayloads ? payloadProblems(pattern, copy) : null;
      if (problems) {
        this.refusals.count(pattern, 'invalid', problems);
        throw refusalEnvelope(pattern, problems);
      }
      reply = settleReply(handler(copy, new BaseRpcContext([pattern])));
    } catch (error) {
      return Promise.reject(error);
    }
    return reply.then(wireCopy) as Promise<T>;
  }

  /** A malformed event is counted and dropped (resolves: as over NATS, it is never delivered again). */
  async publish(pattern: string, data: unknown): Promise<void> {
    const handler = this.handler(pattern);
    if (handler && !handler.isEventHandler) throw new Error(`${pattern} is a request pattern, not an event`);
    if (!handler) return; // nothing here listens: nothing is received
    const copy = wireCopy(data);
    const problems = this.checkPayloads ? payloadProblems(pattern, copy) : null;
    if (problems) return this.refusals.count(pattern, 'invalid', problems);
    await runEventHandlers(handler, copy, pattern);
  }

  private handler(pattern: string): MessageHandler | undefined {
    if (!this.server) throw new Error('In-process transport used before the application started listening');
    return this.server.getHandlers().get(pattern);
  }
}

export class InProcessServer extends Server implements CustomTransportStrategy {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  listen(callback: () => void): void {
    this.bus.attach(this);
    callback();
  }

  close(): void {
    // Nothing to release: the bus lives as long as the process.
  }

  on(): void {
    // No connection status events in-process.
  }

  unwrap<T>(): T {
    return this.bus as T;
  }
}
