import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { DomainError, domainErrorFromRpc, isRpcErrorPayload, ServiceUnavailableError } from '@gen/errors';
import { Events, Msg, NatsConnection, headers as natsHeaders } from 'nats';
import { InProcessBus } from './in-process.transport';
import { MuxedRequests } from './muxed-requests';
import { connectNats } from './nats-connect';
import { NatsTransportConfig, eventSubject, requestSubject } from './nats.config';
import { ensureEventStream } from './nats.server';

/** Request/reply to another service. A remote failure arrives as the same DomainError it was. */
export abstract class RpcClient {
  abstract request<TReply, TRequest = unknown>(subject: string, payload: TRequest, timeoutMs?: number): Promise<TReply>;
}

/** Durable event publication (the outbox relay is the only caller). */
export abstract class EventPublisher {
  /** Resolves once the event is durably accepted; `messageId` makes a republish a no-op. */
  abstract publish(pattern: string, payload: unknown, messageId: string): Promise<void>;
}

/**
 * A request that reached no handler (NATS "no responders": nothing subscribed to the subject, e.g.
 * every replica of the service is down or draining). Unlike a timeout it certainly had no effect,
 * so a caller may undo what it prepared for it.
 */
export class NotDeliveredError extends ServiceUnavailableError {
  constructor(subject: string) {
    super(`A dependency is unavailable (${subject}); retry shortly.`);
  }
}

/** What a caller is told when a service did not answer a request in time. */
export function dependencyTimeoutMessage(subject: string): string {
  return `A dependency did not answer in time (${subject}); retry shortly.`;
}

function toDomainError(error: unknown, subject: string): DomainError {
  if (error instanceof DomainError) return error;
  if (isRpcErrorPayload(error)) return domainErrorFromRpc(error);
  const code = (error as { code?: unknown } | null)?.code;
  // nats.js: the request timed out (TIMEOUT), or nothing subscribes to its subject (503, no responders).
  if (code === 'TIMEOUT') return new ServiceUnavailableError(dependencyTimeoutMessage(subject));
  if (code === '503') return new NotDeliveredError(subject);
  if (error instanceof NatsConnectionLost || code === 'CONNECTION_CLOSED' || code === 'CONNECTION_REFUSED' || code === 'DISCONNECT') {
    return new ServiceUnavailableError(`A dependency is unavailable (${subject}); retry shortly.`);
  }
  new Logger('RpcClient').error({ err: error, subject }, 'Unexpected transport error');
  return new DomainError('internal_error', 'An unexpected error occurred.');
}

export class InProcessRpcClient extends RpcClient {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  request<TReply, TRequest = unknown>(subject: string, payload: TRequest): Promise<TReply> {
    return this.bus.request<TReply>(subject, payload).catch((error: unknown) => Promise.reject(toDomainError(error, subject)));
  }
}

export class InProcessEventPublisher extends EventPublisher {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  publish(pattern: string, payload: unknown): Promise<void> {
    return this.bus.publish(pattern, payload);
  }
}

/**
 * Request/reply over core NATS, every request of the connection answered on one reply subscription
 * (`_INBOX.<id>.*`, one token per request; MuxedRequests): no subscription, no SUB/UNSUB round and
 * no header object per request (Nest's ClientNats subscribes a new inbox for each). The payloads are
 * Nest's NATS packets (`{pattern, data, id}` out, `{id, response | err, isDisposed}` back), so this
 * client and Nest's own ClientNats and ServerNats interoperate (a rolling upgrade can mix them).
 * Each side encodes and decodes a payload once.
 */
export class NatsRpcClient extends RpcClient implements OnApplicationShutdown {
  private nc?: NatsConnection;
  private requests?: MuxedRequests;
  private connecting?: Promise<NatsConnection>;
  /** False while nats.js is reconnecting: requests then fail at once rather than queue. */
  private connected = false;
  private closing = false;
  /** The packet id Nest's server requires to answer (replies are matched by subject, not by it). */
  private sent = 0;

  constructor(private readonly config: NatsTransportConfig) {
    super();
  }

  async request<TReply, TRequest = unknown>(subject: string, payload: TRequest, timeoutMs?: number): Promise<TReply> {
    let requests = this.connected ? this.requests : undefined;
    if (!requests) {
      await this.connection().catch((error: unknown) => Promise.reject(toDomainError(error, subject)));
      // Set by connection() before it resolves.
      requests = this.requests as MuxedRequests;
    }
    const wireSubject = requestSubject(this.config, subject);
    const packet = JSON.stringify({ pattern: wireSubject, data: payload, id: String(++this.sent) });
    let reply: Msg;
    try {
      reply = await requests.request(wireSubject, packet, timeoutMs ?? this.config.requestTimeoutMs);
    } catch (error) {
      throw toDomainError(error, subject);
    }
    return replyOf<TReply>(reply, subject);
  }

  /** The connection (readiness checks, JetStream, broadcasts); rejects while NATS is unreachable. */
  async connection(): Promise<NatsConnection> {
    if (this.closing) throw new NatsConnectionLost('the client is closed');
    if (this.nc) {
      if (!this.connected) throw new NatsConnectionLost('reconnecting');
      return this.nc;
    }
    this.connecting ??= connectNats({
      servers: this.config.url,
      name: `${this.config.service}-client`,
      // Reconnects for as long as the server is away (see NatsJetStreamServer): meanwhile requests
      // fail fast as unavailable and the outbox relay retries, instead of the connection closing for good.
      maxReconnectAttempts: -1,
    }).then(
      (nc) => {
        this.requests = new MuxedRequests(nc);
        this.nc = nc;
        this.connected = true;
        void this.followStatus(nc);
        return nc;
      },
      (error: unknown) => {
        this.connecting = undefined;
        throw error;
      },
    );
    return this.connecting;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.connected = false;
    const nc = this.nc ?? (await this.connecting?.catch(() => undefined));
    this.requests?.close(new NatsConnectionLost('the client is closed'));
    await nc?.close();
  }

  private async followStatus(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect) this.connected = false;
      else if (status.type === Events.Reconnect) this.connected = !this.closing;
    }
  }
}

/** Thrown by NatsRpcClient while it has no connection to NATS. */
export class NatsConnectionLost extends Error {
  readonly code = 'CONNECTION_LOST';
  constructor(state: string) {
    super(`NATS connection lost (${state})`);
  }
}

interface ReplyPacket {
  response?: unknown;
  err?: unknown;
}

const textDecoder = new TextDecoder();

/** The handler's answer, or its error (the envelope's fields) as the DomainError it was. */
function replyOf<TReply>(message: Msg, subject: string): TReply {
  let packet: ReplyPacket;
  try {
    packet = JSON.parse(textDecoder.decode(message.data)) as ReplyPacket;
  } catch (error) {
    throw toDomainError(error, subject);
  }
  if (packet.err !== undefined && packet.err !== null) throw toDomainError(packet.err, subject);
  return packet.response as TReply;
}

export class JetStreamEventPublisher extends EventPublisher {
  private streamReady?: Promise<void>;

  constructor(
    private readonly config: NatsTransportConfig,
    private readonly rpc: NatsRpcClient,
  ) {
    super();
  }

  async publish(pattern: string, payload: unknown, messageId: string): Promise<void> {
    const nc = await this.rpc.connection();
    this.streamReady ??= ensureEventStream(nc, this.config).catch((error: unknown) => {
      this.streamReady = undefined;
      throw error;
    });
    await this.streamReady;
    const h = natsHeaders();
    h.set('Content-Type', 'application/json');
    await nc.jetstream().publish(eventSubject(this.config, pattern), JSON.stringify(payload), {
      msgID: messageId,
      headers: h,
    });
  }
}
