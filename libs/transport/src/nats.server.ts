import { Logger } from '@nestjs/common';
import { MessageHandler, ServerNats } from '@nestjs/microservices';
import {
  AckPolicy,
  Consumer,
  ConsumerMessages,
  DeliverPolicy,
  JsMsg,
  NatsConnection,
  RetentionPolicy,
  StorageType,
} from 'nats';
import { runEventHandlers } from './event-dispatch';
import { NatsTransportConfig, eventSubject, requestSubject, streamSubjects } from './nats.config';

/**
 * Distributed mode's server: request/reply handlers on core NATS (one queue group per service, so
 * replicas share the load), event handlers on JetStream durable consumers (one per service and
 * event, acknowledged only after every handler of the service succeeded; redelivered otherwise).
 */
export class NatsJetStreamServer extends ServerNats {
  private readonly log = new Logger('NatsJetStreamServer');
  private readonly consumers: ConsumerMessages[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly config: NatsTransportConfig) {
    super({
      servers: config.url,
      name: `${config.service}-server`,
      queue: `${config.subjectPrefix}${config.service}`,
      gracefulShutdown: true,
      gracePeriod: 2000,
    });
  }

  override bindEvents(client: NatsConnection): void {
    const queue = `${this.config.subjectPrefix}${this.config.service}`;
    const eventPatterns: string[] = [];
    for (const [pattern, handler] of this.messageHandlers) {
      if (handler.isEventHandler) {
        eventPatterns.push(pattern);
        continue;
      }
      const subject = requestSubject(this.config, pattern);
      const onMessage = this.getMessageHandler(pattern).bind(this);
      client.subscribe(subject, { queue, callback: onMessage });
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
    for (const messages of this.consumers) await messages.close();
    await Promise.allSettled([...this.inFlight]);
    await super.close();
  }

  private async startConsumers(client: NatsConnection, patterns: string[]): Promise<void> {
    await ensureEventStream(client, this.config);
    for (const pattern of patterns) {
      const consumer = await this.ensureConsumer(client, pattern);
      const handler = this.messageHandlers.get(pattern);
      const messages = await consumer.consume({ max_messages: 64 });
      this.consumers.push(messages);
      void (async () => {
        for await (const msg of messages) {
          const task = this.handleJsMessage(handler, pattern, msg).finally(() => this.inFlight.delete(task));
          this.inFlight.add(task);
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
      this.log.error({ pattern, seq: msg.seq }, 'Dropping an event that is not JSON');
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
