import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import type { NatsConnection, Subscription } from 'nats';
import type { NatsTransportConfig } from './nats.config';
import { broadcastProblems, MessageRefusals } from './payload-check';
import { wireCopy } from './wire-copy';

/**
 * Fire-and-forget fan-out to every replica that listens: core NATS with no queue group and no
 * JetStream in distributed mode, an in-process emitter in standalone. For hints that make
 * something faster or live (status streams, cache invalidation): a replica that is down misses
 * them, so what they carry must also be reachable the durable way (the database, the event stream).
 */
export abstract class Broadcaster {
  abstract publish(topic: string, payload: unknown): void;
  /**
   * Publishes and resolves once the message has left this process (NATS: the server has it; in
   * process: the listeners have run), for a change that must reach the other replicas before the
   * caller answers (an API key revoked). Rejects when it could not be sent.
   */
  publishAndFlush(topic: string, payload: unknown): Promise<void> {
    this.publish(topic, payload);
    return Promise.resolve();
  }
  /** Calls `handler` for every message on `topic` (from any replica, this one included); returns the unsubscribe. */
  abstract subscribe(topic: string, handler: (payload: unknown) => void): () => void;
}

/**
 * Whether a broadcast received on `topic` goes on to its subscribers: a malformed one (its topic's
 * class in BROADCAST_PAYLOADS) is counted, then dropped or passed on as that table says.
 */
function admitted(refusals: MessageRefusals, topic: string, payload: unknown): boolean {
  const malformed = broadcastProblems(topic, payload);
  if (!malformed) return true;
  refusals.count(topic, 'invalid', malformed.problems);
  return malformed.malformed === 'deliver';
}

export class InProcessBroadcaster extends Broadcaster {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  /** `checkPayloads` false: messages of this process's own code only, delivered unchecked (InProcessBus). */
  constructor(
    private readonly refusals = new MessageRefusals(),
    private readonly checkPayloads = true,
  ) {
    super();
  }

  publish(topic: string, payload: unknown): void {
    // As over the wire: the listener gets its own copy, and never runs inside the publisher's call.
    const copy = wireCopy(payload);
    setImmediate(() => this.emit(topic, copy));
  }

  override publishAndFlush(topic: string, payload: unknown): Promise<void> {
    const copy = wireCopy(payload);
    return new Promise((resolve, reject) =>
      setImmediate(() => {
        try {
          this.emit(topic, copy);
          resolve();
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }),
    );
  }

  subscribe(topic: string, handler: (payload: unknown) => void): () => void {
    this.emitter.on(topic, handler);
    return () => this.emitter.off(topic, handler);
  }

  private emit(topic: string, copy: unknown): void {
    // Checked once for all of this process's subscribers (only when there are any: nothing else receives it).
    if (this.emitter.listenerCount(topic) > 0 && (!this.checkPayloads || admitted(this.refusals, topic, copy))) this.emitter.emit(topic, copy);
  }
}

export function broadcastSubject(config: Pick<NatsTransportConfig, 'subjectPrefix'>, topic: string): string {
  return `${config.subjectPrefix}broadcast.${topic}`;
}

/**
 * Where NatsBroadcaster gets its connection: NatsRpcClient, whose connection it shares. Declared here
 * so the broadcaster does not import the RPC client (which imports the in-process bus, which builds
 * an InProcessBroadcaster).
 */
export interface NatsConnectionSource {
  connection(): Promise<NatsConnection>;
}

/** One topic's listeners in this process, and the one NATS subscription that feeds them all. */
interface TopicListeners {
  handlers: Set<(payload: unknown) => void>;
  subscription?: Subscription;
  /** Its last handler left: a subscription still being made is dropped as soon as it exists. */
  closed: boolean;
}

export class NatsBroadcaster extends Broadcaster implements OnApplicationShutdown {
  private readonly logger = new Logger(NatsBroadcaster.name);
  /**
   * One NATS subscription per topic, whatever the number of listeners (the gateway has three on
   * `generation.changed`): NATS would otherwise send each message once per subscription, and each
   * copy was parsed, decoded and checked again (bench/HISTORY.md, issue 34). Every listener gets the
   * same decoded payload, as InProcessBroadcaster's do.
   */
  private readonly topics = new Map<string, TopicListeners>();

  constructor(
    private readonly config: NatsTransportConfig,
    private readonly rpc: NatsConnectionSource,
    private readonly refusals = new MessageRefusals(),
  ) {
    super();
  }

  publish(topic: string, payload: unknown): void {
    this.rpc
      .connection()
      .then((nc) => nc.publish(broadcastSubject(this.config, topic), JSON.stringify(payload)))
      .catch((error: unknown) => this.logger.warn({ err: error, topic }, 'Broadcast not sent'));
  }

  override async publishAndFlush(topic: string, payload: unknown): Promise<void> {
    const nc = await this.rpc.connection();
    nc.publish(broadcastSubject(this.config, topic), JSON.stringify(payload));
    await nc.flush();
  }

  subscribe(topic: string, handler: (payload: unknown) => void): () => void {
    // A handler given twice is called twice, as an emitter's listener would be.
    const own = (payload: unknown) => handler(payload);
    let listeners = this.topics.get(topic);
    if (!listeners) {
      listeners = { handlers: new Set(), closed: false };
      this.topics.set(topic, listeners);
      this.listen(topic, listeners);
    }
    listeners.handlers.add(own);
    const joined = listeners;
    return () => {
      if (!joined.handlers.delete(own) || joined.handlers.size > 0) return;
      joined.closed = true;
      joined.subscription?.unsubscribe();
      if (this.topics.get(topic) === joined) this.topics.delete(topic);
    };
  }

  /** Makes the topic's one subscription: each message decoded and checked once, then handed to every listener. */
  private listen(topic: string, listeners: TopicListeners): void {
    this.rpc
      .connection()
      .then((nc) => {
        if (listeners.closed) return;
        listeners.subscription = nc.subscribe(broadcastSubject(this.config, topic), {
          callback: (error, message) => {
            if (error) return this.logger.warn({ err: error, topic }, 'Broadcast subscription error');
            let payload: unknown;
            try {
              payload = message.json();
            } catch {
              return this.refusals.count(topic, 'not_json');
            }
            if (!admitted(this.refusals, topic, payload)) return;
            for (const handler of [...listeners.handlers]) {
              try {
                handler(payload);
              } catch (handlerError) {
                this.logger.error({ err: handlerError, topic }, 'Broadcast handler failed');
              }
            }
          },
        });
      })
      .catch((error: unknown) => {
        this.logger.error({ err: error, topic }, 'Broadcast subscription failed');
        // The next subscribe to the topic tries again.
        if (this.topics.get(topic) === listeners) this.topics.delete(topic);
      });
  }

  onApplicationShutdown(): void {
    for (const listeners of this.topics.values()) {
      listeners.closed = true;
      listeners.subscription?.unsubscribe();
    }
    this.topics.clear();
  }
}
