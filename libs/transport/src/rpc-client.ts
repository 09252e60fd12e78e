import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { ClientNats } from '@nestjs/microservices';
import { DomainError, domainErrorFromRpc, isRpcErrorPayload, ServiceUnavailableError } from '@gen/errors';
import { NatsConnection, headers as natsHeaders } from 'nats';
import { lastValueFrom, timeout, TimeoutError } from 'rxjs';
import { InProcessBus } from './in-process.transport';
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
  if (error instanceof TimeoutError) {
    return new ServiceUnavailableError(dependencyTimeoutMessage(subject));
  }
  const code = (error as { code?: unknown } | null)?.code;
  // Nest's NATS client reports "no responders" as EmptyResponseException (nats.js: code 503).
  if (code === '503' || (error instanceof Error && error.constructor.name === 'EmptyResponseException')) {
    return new NotDeliveredError(subject);
  }
  if (code === 'TIMEOUT' || code === 'CONNECTION_CLOSED') {
    return new ServiceUnavailableError(`A dependency is unavailable (${subject}); retry shortly.`);
  }
  new Logger('RpcClient').error({ err: error, subject }, 'Unexpected transport error');
  return new DomainError('internal_error', 'An unexpected error occurred.');
}

export class InProcessRpcClient extends RpcClient {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  async request<TReply, TRequest = unknown>(subject: string, payload: TRequest): Promise<TReply> {
    try {
      return await this.bus.request<TReply>(subject, payload);
    } catch (error) {
      throw toDomainError(error, subject);
    }
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

export class NatsRpcClient extends RpcClient implements OnApplicationShutdown {
  private readonly client: ClientNats;

  constructor(private readonly config: NatsTransportConfig) {
    super();
    // Reconnects for as long as the server is away (see NatsJetStreamServer): meanwhile requests
    // fail fast as unavailable and the outbox relay retries, instead of the connection closing for good.
    this.client = new ClientNats({ servers: config.url, name: `${config.service}-client`, maxReconnectAttempts: -1 });
  }

  async request<TReply, TRequest = unknown>(subject: string, payload: TRequest, timeoutMs?: number): Promise<TReply> {
    try {
      const reply$ = this.client
        .send<TReply, TRequest>(requestSubject(this.config, subject), payload)
        .pipe(timeout(timeoutMs ?? this.config.requestTimeoutMs));
      return await lastValueFrom(reply$);
    } catch (error) {
      throw toDomainError(error, subject);
    }
  }

  async connection(): Promise<NatsConnection> {
    await this.client.connect();
    return this.client.unwrap<NatsConnection>();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
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
