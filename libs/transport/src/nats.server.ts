import { Logger } from '@nestjs/common';
import { MessageHandler, NatsContext, ServerNats } from '@nestjs/microservices';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import {
  AckPolicy,
  Consumer,
  ConsumerMessages,
  DeliverPolicy,
  JsMsg,
  Msg,
  NatsConnection,
  RetentionPolicy,
  StorageType,
  Subscription,
} from 'nats';
import { runEventHandlers, settleReply } from './event-dispatch';
import { NatsTransportConfig, eventSubject, requestSubject, streamSubjects } from './nats.config';
import { connectNats } from './nats-connect';
import { MessageRefusals, payloadProblems, refusalEnvelope } from './payload-check';

/** The connection's options, and ServerNats's (queue group, shutdown). */
function serverOptions(config: NatsTransportConfig) {
  return {
    servers: config.url,
    name: `${config.service}-server`,
    // Reconnect for as long as the server is away (nats.js gives up after 10 attempts, ~20 s, and
    // closes the connection for good: subscriptions and consumers would never come back).
    maxReconnectAttempts: -1,
    queue: `${config.subjectPrefix}${config.service}`,
    // Draining is done here (stopAccepting, then in-flight work), not by ServerNats's fixed grace period.
    gracefulShutdown: false,
  };
}

/**
 * Distributed mode's server: request/reply handlers on core NATS (one queue group per service, so
 * replicas share the load), event handlers on JetStream durable consumers (one per service and
 * event, acknowledged only after every handler of the service succeeded; redelivered otherwise).
 * Every payload is checked against its subject's class first (payload-check.ts): a malformed request
 * is answered with the envelope, a malformed event is dropped; both are counted in `refusals`.
 */
export class NatsJetStreamServer extends ServerNats {
  /** Messages refused on receipt; give it to TransportModule.forRoot so the process's metrics show it. */
  readonly refusals = new MessageRefusals();
  private readonly log = new Logger('NatsJetStreamServer');
  private readonly consumers: ConsumerMessages[] = [];
  private readonly requestSubscriptions: Subscription[] = [];
  /** Event handlers and request handlers still running (awaited, within a bound, on close). */
  private inFlight = 0;
  /** Resolves the wait of close() when the last handler in flight settles. */
  private onIdle?: () => void;
  private connected = false;
  private accepting = true;

  /**
   * @param drainTimeoutMs On close, how long handlers already running may take to finish and reply
   *   before the connection closes (the rest are answered by the caller's timeout and retried).
   */
  constructor(
    private readonly config: NatsTransportConfig,
    private readonly drainTimeoutMs = 10_000,
  ) {
    super(serverOptions(config));
    this.status.subscribe((status) => (this.connected = status === 'connected'));
  }

  /** ServerNats's connection, made as every connection of ours is (nats-connect.ts). */
  override createNatsClient(): Promise<NatsConnection> {
    return connectNats(serverOptions(this.config));
  }

  /** True while this server's NATS connection is up (readiness). */
  isConnected(): boolean {
    return this.connected && this.accepting;
  }

  /**
   * Stops taking new work: request subscriptions are drained (NATS routes new requests to the other
   * replicas of the queue group, and a request already on its way to this one is still answered:
   * a plain unsubscribe would drop it and its caller would wait for a timeout) and the JetStream
   * consumers stop pulling. Work in flight goes on.
   */
  async stopAccepting(): Promise<void> {
    if (!this.accepting) return;
    this.accepting = false;
    await Promise.allSettled(this.requestSubscriptions.map((subscription) => subscription.drain()));
    await Promise.allSettled(this.consumers.map((messages) => messages.close()));
  }

  override bindEvents(client: NatsConnection): void {
    const queue = `${this.config.subjectPrefix}${this.config.service}`;
    const eventPatterns: string[] = [];
    for (const [pattern, { isEventHandler }] of this.messageHandlers) {
      if (isEventHandler) {
        eventPatterns.push(pattern);
        continue;
      }
      const subject = requestSubject(this.config, pattern);
      const subscription = client.subscribe(subject, {
        queue,
        callback: (error, message) => {
          if (error) this.log.error({ err: error, pattern }, 'Request subscription error');
          else this.track(this.handleMessage(pattern, message));
        },
      });
      this.requestSubscriptions.push(subscription);
    }
    if (eventPatterns.length > 0) {
      this.startConsumers(client, eventPatterns).catch((error: unknown) => {
        this.log.error({ err: error }, 'JetStream consumers failed to start; exiting so the orchestrator restarts us');
        process.exitCode = 1;
        process.kill(process.pid, 'SIGTERM');
      });
    }
  }

  override async close(): Promise<void> {
    await this.stopAccepting();
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      const drained = await new Promise<boolean>((resolve) => {
        this.onIdle = () => resolve(true);
        timer = setTimeout(() => resolve(false), this.drainTimeoutMs);
      });
      clearTimeout(timer);
      this.onIdle = undefined;
      if (!drained) this.log.warn({ inFlight: this.inFlight }, 'Closing with handlers still running; their callers retry or redeliver');
    }
    await super.close();
  }

  /** A message on a request subject (ServerNats's entry point, kept so a subclass can replace it). */
  override handleMessage(pattern: string, message: Msg): Promise<void> {
    return this.answer(pattern, this.messageHandlers.get(pattern), message);
  }

  /**
   * A request: Nest's packet decoded once, the handler (with its pipes, guards and filters) called,
   * and one reply encoded once. ServerNats would look the handler up again for each message (through
   * a JSON.parse of the pattern that throws), and run each reply through RxJS operators and a
   * process.nextTick; its wire format is kept (`{id, response | err, isDisposed}`), so Nest's own
   * ClientNats can still call this server.
   */
  private async answer(pattern: string, handler: MessageHandler | undefined, message: Msg): Promise<void> {
    let packet: RequestPacket;
    try {
      packet = JSON.parse(textDecoder.decode(message.data)) as RequestPacket;
    } catch {
      this.refusals.count(pattern, 'not_json');
      return;
    }
    // No id: an event published on core NATS (events here travel on JetStream); ServerNats knows those.
    if (packet === null || typeof packet !== 'object' || packet.id === undefined) return super.handleMessage(pattern, message);
    const id = packet.id;
    if (!handler) {
      this.respond(message, { id, status: 'error', err: NO_MESSAGE_HANDLER, isDisposed: true });
      return;
    }
    const problems = payloadProblems(pattern, packet.data);
    if (problems) {
      this.refusals.count(pattern, 'invalid', problems);
      this.respond(message, { id, err: refusalEnvelope(pattern, problems), isDisposed: true });
      return;
    }
    const context = new NatsContext([message.subject, message.headers]);
    return this.onProcessingStartHook(this.transportId, context, async () => {
      let reply: ReplyPacket;
      try {
        reply = { id, response: await settleReply(handler(packet.data, context)), isDisposed: true };
      } catch (err) {
        reply = { id, err, isDisposed: true };
      }
      this.onProcessingEndHook?.(this.transportId, context);
      this.respond(message, reply);
    });
  }

  private respond(message: Msg, reply: ReplyPacket): void {
    // A request sent without a reply subject (publish, not request) expects no answer.
    if (message.reply) message.respond(JSON.stringify(reply));
  }

  /** Counts a handler in flight until it settles (close() waits for the count to reach zero). */
  private track(task: Promise<unknown>): void {
    this.inFlight++;
    task.then(this.settled, (error: unknown) => {
      this.log.error({ err: error }, 'Message handler failed');
      this.settled();
    });
  }

  private readonly settled = (): void => {
    if (--this.inFlight === 0) this.onIdle?.();
  };

  private async startConsumers(client: NatsConnection, patterns: string[]): Promise<void> {
    await ensureEventStream(client, this.config);
    for (const pattern of patterns) {
      const consumer = await this.ensureConsumer(client, pattern);
      const handler = this.messageHandlers.get(pattern);
      const messages = await consumer.consume({ max_messages: 64 });
      this.consumers.push(messages);
      if (!this.accepting) {
        await messages.close(); // shutdown began while the consumers were being set up
        return;
      }
      void (async () => {
        for await (const msg of messages) {
          this.track(this.handleJsMessage(handler, pattern, msg));
        }
      })();
    }
  }

  private async ensureConsumer(client: NatsConnection, pattern: string): Promise<Consumer> {
    const jsm = await client.jetstreamManager();
    const durable = `${this.config.service}-${pattern.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    await jsm.consumers.add(this.config.streamName, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: eventSubject(this.config, pattern),
      ack_wait: 30_000_000_000,
      max_deliver: -1,
    });
    return client.jetstream().consumers.get(this.config.streamName, durable);
  }

  private async handleJsMessage(handler: MessageHandler | undefined, pattern: string, msg: JsMsg): Promise<void> {
    let data: unknown;
    try {
      data = msg.json();
    } catch {
      this.refusals.count(pattern, 'not_json');
      msg.term();
      return;
    }
    const problems = payloadProblems(pattern, data);
    if (problems) {
      // Never redelivered: the same bytes would be refused again.
      this.refusals.count(pattern, 'invalid', problems);
      msg.term();
      return;
    }
    try {
      await runEventHandlers(handler, data, pattern);
      msg.ack();
    } catch (error) {
      const delayMs = Math.min(30_000, 500 * 2 ** Math.min(6, msg.info.redeliveryCount));
      this.log.warn({ err: error, pattern, seq: msg.seq, delayMs }, 'Event handler failed; will be redelivered');
      msg.nak(delayMs);
    }
  }
}

interface RequestPacket {
  id?: string;
  data?: unknown;
}

interface ReplyPacket {
  id: string;
  response?: unknown;
  err?: unknown;
  status?: 'error';
  isDisposed: true;
}

const textDecoder = new TextDecoder();

/** Creates the events stream when missing (idempotent; safe from every replica at once). */
export async function ensureEventStream(client: NatsConnection, config: NatsTransportConfig): Promise<void> {
  const jsm = await client.jetstreamManager();
  try {
    await jsm.streams.info(config.streamName);
  } catch {
    await jsm.streams.add({
      name: config.streamName,
      subjects: streamSubjects(config),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: 7 * 24 * 3600 * 1_000_000_000,
      duplicate_window: 10 * 60 * 1_000_000_000,
    });
  }
}
