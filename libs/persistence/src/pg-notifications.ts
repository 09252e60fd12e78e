import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client, ClientConfig, Notification, Pool } from 'pg';
import type { DataSource } from 'typeorm';

/** How long a lost listening connection waits before it connects again (then doubles, up to the max). */
const RECONNECT_FIRST_MS = 200;
const RECONNECT_MAX_MS = 5_000;

/**
 * PostgreSQL's LISTEN/NOTIFY for one process: one connection of its own (outside the pool) that
 * listens on every channel asked for, and calls the handlers of a channel for each notification.
 * A NOTIFY is delivered when the writer's transaction commits, whoever the writer is (a service, the
 * CLI, SQL by hand), so a change travels with the database even where no broker links the writer
 * to this process (the CLI against a running standalone, a replica cut off from NATS).
 *
 * Notifications sent while the connection is down are lost: when it comes back, every `onResync`
 * handler runs (a cache then drops what it holds) before the channels are listened to again.
 */
export class PgNotifications implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(PgNotifications.name);
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private readonly resyncHandlers = new Set<() => void>();
  private client?: Client;
  private connecting?: Promise<void>;
  private stopped = false;
  /** True after a failed connection or a lost one: notifications may have been missed since. */
  private missed = false;
  private retryMs = RECONNECT_FIRST_MS;
  private retryTimer?: NodeJS.Timeout;

  constructor(private readonly config: ClientConfig) {}

  /** The listener of a DataSource's database, connecting as its pool does. */
  static forDataSource(dataSource: DataSource): PgNotifications {
    const pool = (dataSource.driver as unknown as { master?: Pool & { options?: ClientConfig } }).master;
    if (!pool?.options) throw new Error('PgNotifications: the DataSource is not an initialized PostgreSQL DataSource');
    const { connectionString, host, port, user, password, database, ssl, options, connectionTimeoutMillis } = pool.options;
    return new PgNotifications({ connectionString, host, port, user, password, database, ssl, options, connectionTimeoutMillis, application_name: 'gen-listen' });
  }

  /** True while the connection is up and listening: notifications reach this process now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Calls `handler` with each notification's payload on `channel` (LISTEN at once if connected); returns the unsubscribe. */
  listen(channel: string, handler: (payload: string) => void): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      this.client?.query(`LISTEN ${quoteIdent(channel)}`).catch((error: unknown) => this.lost(error));
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Calls `handler` after a reconnection: notifications may have been missed while the connection was down. */
  onResync(handler: () => void): () => void {
    this.resyncHandlers.add(handler);
    return () => this.resyncHandlers.delete(handler);
  }

  /** Connects (once); a failure is logged and retried in the background: start-up never waits on it. */
  onModuleInit(): Promise<void> {
    return this.start();
  }

  start(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client(this.config);
    client.on('error', (error) => this.lost(error, client));
    client.on('end', () => this.lost(new Error('listening connection ended'), client));
    client.on('notification', (message: Notification) => this.deliver(message));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.missed = true;
      this.logger.warn({ err: error }, 'Not listening to database notifications yet; retrying');
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = RECONNECT_FIRST_MS;
    // Listening again after a loss: whatever was announced meanwhile is unknown here.
    if (this.missed) {
      this.missed = false;
      this.logger.log('Listening to database notifications again');
      for (const handler of this.resyncHandlers) this.safely(handler);
    }
  }

  private deliver(message: Notification): void {
    for (const handler of this.handlers.get(message.channel) ?? []) this.safely(() => handler(message.payload ?? ''));
  }

  private lost(error: unknown, client?: Client): void {
    if (client !== undefined && client !== this.client) return;
    if (this.client === undefined && client === undefined) return;
    const gone = this.client;
    this.client = undefined;
    gone?.removeAllListeners('end');
    void gone?.end().catch(() => undefined);
    if (this.stopped) return;
    this.missed = true;
    this.logger.warn({ err: error }, 'Database notifications lost; reconnecting');
    // Nothing arrives until the connection is back: the caches stop trusting what they hold now.
    for (const handler of this.resyncHandlers) this.safely(handler);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(RECONNECT_MAX_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.start();
    }, wait);
    this.retryTimer.unref();
  }

  private safely(handler: () => void): void {
    try {
      handler();
    } catch (error) {
      this.logger.error({ err: error }, 'A database notification handler failed');
    }
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
