import { ConsoleLogger, Controller, Inject, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { Events, GenerationFinishedEvent, Subjects, WebhookSecretReply, WebhookSecretRequest } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { InProcessBus, InProcessServer, TransportModule } from '@gen/transport';
import { DeliveryDispatcher, openWebhooksDatabase, WebhooksModule, WebhooksSettings } from '@gen/webhooks';

const KEY_STORE = Symbol('BENCH_KEY_STORE');

/**
 * Stands in for the gateway's `auth.webhook-secret.get` handler, which the dispatcher asks before
 * every attempt: one primary-key read from Postgres on a pool of its own, as the gateway makes.
 */
class KeyStore {
  constructor(private readonly pool: Pool) {}

  async get(apiKeyId: string): Promise<WebhookSecretReply> {
    const { rows } = await this.pool.query<{ secret: string; url: string | null }>(
      'SELECT secret, url FROM bench_keys.api_keys WHERE id = $1',
      [apiKeyId],
    );
    return { secret: rows[0]?.secret ?? null, defaultWebhookUrl: rows[0]?.url ?? null };
  }
}

@Controller()
class BenchKeysController {
  constructor(@Inject(KEY_STORE) private readonly keys: KeyStore) {}

  @MessagePattern(Subjects.authWebhookSecretGet)
  webhookSecret(@Payload() request: WebhookSecretRequest): Promise<WebhookSecretReply> {
    return this.keys.get(request.apiKeyId);
  }
}

export interface DispatcherUnderTest {
  /** Feeds an event through the handler the event consumer calls (in-process bus, as standalone). */
  publish(event: GenerationFinishedEvent): Promise<void>;
  dispatcher: DeliveryDispatcher;
  /** The webhooks schema (for reading attempts back). */
  db: DataSource;
  close(): Promise<void>;
}

/**
 * The webhooks module as production runs it: its real repository on a migrated `webhooks` schema,
 * its dispatcher and sender (undici through the safe agent), its message handlers on a transport.
 */
export async function startDispatcher(
  databaseUrl: string,
  settings: WebhooksSettings,
  key: { id: string; secret: string },
  poolSize: number,
): Promise<DispatcherUnderTest> {
  const db = await openWebhooksDatabase(databaseUrl, poolSize);
  const keysPool = new Pool({ connectionString: databaseUrl, max: 10 });
  keysPool.on('error', () => undefined); // an idle connection closed by the server at teardown
  await keysPool.query('CREATE SCHEMA IF NOT EXISTS bench_keys');
  await keysPool.query('CREATE TABLE IF NOT EXISTS bench_keys.api_keys (id uuid PRIMARY KEY, secret text NOT NULL, url text)');
  await keysPool.query('INSERT INTO bench_keys.api_keys (id, secret) VALUES ($1, $2) ON CONFLICT DO NOTHING', [key.id, key.secret]);

  const bus = new InProcessBus();
  @Module({
    imports: [TransportModule.forRoot({ kind: 'in-process', bus }), WebhooksModule.register({ dataSource: db, settings })],
    controllers: [BenchKeysController],
    providers: [{ provide: KEY_STORE, useValue: new KeyStore(keysPool) }],
  })
  class BenchWebhooksModule {}

  const app: INestMicroservice = await NestFactory.createMicroservice(BenchWebhooksModule, {
    strategy: new InProcessServer(bus),
    logger: new ConsoleLogger({ json: true, logLevels: ['warn', 'error', 'fatal'] }),
  });
  app.useGlobalFilters(new RpcErrorFilter());
  await app.listen();
  return {
    publish: (event) => bus.publish(event.event === 'generation.failed' ? Events.generationFailed : Events.generationCompleted, event),
    dispatcher: app.get(DeliveryDispatcher),
    db,
    close: async () => {
      await app.close();
      await keysPool.end();
      await db.destroy();
    },
  };
}
