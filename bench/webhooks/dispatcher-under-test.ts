import { ConsoleLogger, Controller, Inject, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { DataSource } from 'typeorm';
import { Events, GenerationFinishedEvent, Subjects, WebhookSecretReply, WebhookSecretRequest } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { InProcessBus, InProcessServer, TransportModule } from '@gen/transport';
import { DeliveryDispatcher, openWebhooksDatabase, WebhooksModule, WebhooksSettings } from '@gen/webhooks';

const KEY_STORE = Symbol('BENCH_KEY_STORE');

/**
 * Stands in for the gateway's `auth.webhook-secret.get` handler (a primary-key read of auth.api_keys
 * in the gateway's own process), which the dispatcher asks before attempts. The request still goes
 * through the transport; only the gateway's side is simulated, from memory, so that the numbers
 * are the webhooks service's own.
 */
class KeyStore {
  constructor(private readonly keys: ReadonlyMap<string, string>) {}

  get(apiKeyId: string): Promise<WebhookSecretReply> {
    return Promise.resolve({ secret: this.keys.get(apiKeyId) ?? null });
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
  keys: ReadonlyMap<string, string>,
  poolSize: number,
): Promise<DispatcherUnderTest> {
  const db = await openWebhooksDatabase(databaseUrl, poolSize);

  const bus = new InProcessBus();
  @Module({
    imports: [TransportModule.forRoot({ kind: 'in-process', bus }), WebhooksModule.register({ dataSource: db, settings })],
    controllers: [BenchKeysController],
    providers: [{ provide: KEY_STORE, useValue: new KeyStore(keys) }],
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
      await db.destroy();
    },
  };
}
